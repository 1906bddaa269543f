import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { AnyMember, RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import { CursorPaginationQuery, type Page } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { AddMemberDto, MemberResponse, UpdateMemberDto, UserIdParam } from './dto/member.dto';
import { MembersService } from './members.service';

@ApiTags('workspace')
@Controller('workspace/members')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @AnyMember()
  @ApiOkResponse({ description: '{data: MemberResponse[], nextCursor}' })
  list(@CurrentCtx() ctx: TenantContext, @Query() query: CursorPaginationQuery): Promise<Page<MemberResponse>> {
    return this.members.list(ctx, query);
  }

  @Post()
  @RequirePermission('workspace.manage')
  @HttpCode(201)
  @ApiCreatedResponse({ type: MemberResponse })
  add(@CurrentCtx() ctx: TenantContext, @Body() dto: AddMemberDto): Promise<MemberResponse> {
    return this.members.add(ctx, dto);
  }

  @Put(':userId')
  @RequirePermission('workspace.manage')
  @ApiOkResponse({ type: MemberResponse })
  update(
    @CurrentCtx() ctx: TenantContext,
    @Param() { userId }: UserIdParam,
    @Body() dto: UpdateMemberDto,
  ): Promise<MemberResponse> {
    return this.members.update(ctx, userId, dto);
  }

  @Delete(':userId')
  @RequirePermission('workspace.manage')
  @HttpCode(204)
  @ApiNoContentResponse()
  remove(@CurrentCtx() ctx: TenantContext, @Param() { userId }: UserIdParam): Promise<void> {
    return this.members.remove(ctx, userId);
  }
}
