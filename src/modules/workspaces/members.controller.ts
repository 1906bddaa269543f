import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { AnyMember, RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import { CursorPaginationQuery, type Page } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ApiPageResponse } from 'src/core/http/openapi.decorators';
import { AddMemberDto, MemberResponse, ResetPasswordResponse, UpdateMemberDto, UserIdParam } from './dto/member.dto';
import { MembersService } from './members.service';

@ApiTags('workspace')
@Controller('workspace/members')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @AnyMember()
  @ApiPageResponse(MemberResponse)
  @ApiOperation({ summary: 'List workspace members' })
  list(@CurrentCtx() ctx: TenantContext, @Query() query: CursorPaginationQuery): Promise<Page<MemberResponse>> {
    return this.members.list(ctx, query);
  }

  @Post()
  @RequirePermission('workspace.manage')
  @HttpCode(201)
  @ApiCreatedResponse({ type: MemberResponse })
  @ApiOperation({ summary: 'Add a member (existing user by email, or a new user)' })
  add(@CurrentCtx() ctx: TenantContext, @Body() dto: AddMemberDto): Promise<MemberResponse> {
    return this.members.add(ctx, dto);
  }

  @Put(':userId')
  @RequirePermission('workspace.manage')
  @ApiOkResponse({ type: MemberResponse })
  @ApiOperation({ summary: "Change a member's role" })
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
  @ApiOperation({ summary: 'Remove a member from the workspace' })
  remove(@CurrentCtx() ctx: TenantContext, @Param() { userId }: UserIdParam): Promise<void> {
    return this.members.remove(ctx, userId);
  }

  @Post(':userId/reset-password')
  @RequirePermission('workspace.manage')
  @HttpCode(200)
  @ApiOkResponse({ type: ResetPasswordResponse })
  @ApiOperation({ summary: "Reset a member's password to a generated one (shown once)" })
  resetPassword(@CurrentCtx() ctx: TenantContext, @Param() { userId }: UserIdParam): Promise<ResetPasswordResponse> {
    return this.members.resetPassword(ctx, userId);
  }
}
