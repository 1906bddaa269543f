import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import { CursorPaginationQuery, type Page } from 'src/core/http/pagination';
import { IdParam } from 'src/core/http/uuid-param.dto';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ConversationViewsService } from './conversation-views.service';
import {
  ConversationViewPageResponse,
  ConversationViewResponse,
  CreateConversationViewDto,
} from './dto/conversation-view.dto';

/** Saved views. Registered before ConversationsController so `/conversations/views` is not taken for an `:id`. */
@ApiTags('conversations')
@Controller('conversations/views')
export class ConversationViewsController {
  constructor(private readonly views: ConversationViewsService) {}

  @Get()
  @RequirePermission('conversations.reply')
  @ApiOkResponse({ type: ConversationViewPageResponse, description: 'Shared views and your own' })
  @ApiOperation({ summary: 'List saved conversation views' })
  list(
    @CurrentCtx() ctx: TenantContext,
    @Query() query: CursorPaginationQuery,
  ): Promise<Page<ConversationViewResponse>> {
    return this.views.list(ctx, query);
  }

  @Post()
  @RequirePermission('conversations.reply')
  @HttpCode(201)
  @ApiCreatedResponse({ type: ConversationViewResponse, description: 'Shared views need conversations.views' })
  @ApiOperation({ summary: 'Save a conversation view (filters)' })
  create(@CurrentCtx() ctx: TenantContext, @Body() dto: CreateConversationViewDto): Promise<ConversationViewResponse> {
    return this.views.create(ctx, dto);
  }

  @Delete(':id')
  @RequirePermission('conversations.reply')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Its creator, or (shared views) someone with conversations.views' })
  @ApiOperation({ summary: 'Delete a saved conversation view' })
  remove(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<void> {
    return this.views.remove(ctx, id);
  }
}
