import { Body, Controller, Get, HttpCode, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { AnyMember, NoWorkspace, RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx, CurrentPrincipal } from 'src/core/auth/decorators/current-ctx.decorator';
import type { Principal } from 'src/core/auth/principal';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { CreateWorkspaceDto, UpdateWorkspaceDto, WorkspaceResponse, toWorkspaceResponse } from './dto/workspace.dto';
import { WorkspacesService } from './workspaces.service';

@ApiTags('workspace')
@Controller()
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @Post('workspaces')
  @NoWorkspace()
  @HttpCode(201)
  @ApiCreatedResponse({ type: WorkspaceResponse, description: 'A new STARTER workspace owned by the caller' })
  @ApiOperation({ summary: 'Create a workspace owned by the caller' })
  async create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateWorkspaceDto): Promise<WorkspaceResponse> {
    const userId = principal.type === 'user' ? principal.userId : '';
    return toWorkspaceResponse(await this.workspaces.create({ name: dto.name, plan: 'STARTER', ownerId: userId }));
  }

  @Get('workspace')
  @AnyMember()
  @ApiOkResponse({ type: WorkspaceResponse })
  @ApiOperation({ summary: 'Get the current workspace' })
  get(@CurrentCtx() ctx: TenantContext): Promise<WorkspaceResponse> {
    return this.workspaces.get(ctx);
  }

  @Put('workspace')
  @RequirePermission('workspace.manage')
  @ApiOkResponse({ type: WorkspaceResponse })
  @ApiOperation({ summary: 'Rename the workspace or change its timezone' })
  update(@CurrentCtx() ctx: TenantContext, @Body() dto: UpdateWorkspaceDto): Promise<WorkspaceResponse> {
    return this.workspaces.update(ctx, dto);
  }
}
