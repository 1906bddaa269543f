import { Body, Controller, Get, HttpCode, Post, Put } from '@nestjs/common';
import { ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { AnyMember, RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { MyPermissionsResponse, PermissionsResponse, UpdatePermissionsDto } from './dto/permissions.dto';
import { PermissionsService } from './permissions.service';

@ApiTags('permissions')
@Controller('permissions')
export class PermissionsController {
  constructor(private readonly permissions: PermissionsService) {}

  @Get()
  @RequirePermission('permissions.manage')
  @ApiOkResponse({ type: PermissionsResponse })
  @ApiOperation({ summary: 'Get the role permission matrix' })
  get(@CurrentCtx() ctx: TenantContext): Promise<PermissionsResponse> {
    return this.permissions.get(ctx);
  }

  @Put()
  @RequirePermission('permissions.manage')
  @ApiOkResponse({ type: PermissionsResponse })
  @ApiOperation({ summary: 'Change the role permission matrix' })
  update(@CurrentCtx() ctx: TenantContext, @Body() dto: UpdatePermissionsDto): Promise<PermissionsResponse> {
    return this.permissions.update(ctx, dto);
  }

  @Get('me')
  @AnyMember()
  @ApiOkResponse({ type: MyPermissionsResponse })
  @ApiOperation({ summary: "Get the caller's role and permissions" })
  me(@CurrentCtx() ctx: TenantContext): MyPermissionsResponse {
    return this.permissions.me(ctx);
  }

  @Post('reset')
  @RequirePermission('permissions.manage')
  @HttpCode(200)
  @ApiOkResponse({ type: PermissionsResponse })
  @ApiOperation({ summary: 'Reset the permission matrix to the defaults' })
  reset(@CurrentCtx() ctx: TenantContext): Promise<PermissionsResponse> {
    return this.permissions.reset(ctx);
  }
}
