import { Body, Controller, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import type { Page } from 'src/core/http/pagination';
import { IdParam } from 'src/core/http/uuid-param.dto';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ConversationActionsService } from './conversation-actions.service';
import { ConversationStarter } from './conversation-starter.service';
import { ConversationsService } from './conversations.service';
import {
  AssignConversationDto,
  ConversationNoteResponse,
  CreateConversationDto,
  CreateConversationNoteDto,
  HoldConversationDto,
  UpdateConversationDto,
  WrapUpConversationDto,
} from './dto/conversation-actions.dto';
import {
  ConversationDetailResponse,
  ConversationPageResponse,
  ConversationResponse,
  GetConversationQuery,
  MessageResponse,
  SendMessageDto,
} from './dto/conversation.dto';
import { ListConversationsQuery } from './dto/list-conversations.query';
import { MessagesService } from './messages.service';

/**
 * The conversation inbox. Reads need `conversations.reply` and show only what the caller may see
 * (DESIGN §3.4: without `conversations.view_all`, theirs and the unassigned ones of their queues);
 * every action checks the same rule (404 otherwise).
 */
@ApiTags('conversations')
@Controller('conversations')
export class ConversationsController {
  constructor(
    private readonly conversations: ConversationsService,
    private readonly actions: ConversationActionsService,
    private readonly starter: ConversationStarter,
    private readonly messages: MessagesService,
  ) {}

  @Get()
  @RequirePermission('conversations.reply')
  @ApiOkResponse({ type: ConversationPageResponse, description: 'Newest activity (lastMessageAt) first' })
  @ApiOperation({ summary: 'List conversations' })
  list(@CurrentCtx() ctx: TenantContext, @Query() query: ListConversationsQuery): Promise<Page<ConversationResponse>> {
    return this.conversations.list(ctx, query);
  }

  @Post()
  @RequirePermission('conversations.reply')
  @HttpCode(201)
  @ApiCreatedResponse({ type: ConversationDetailResponse })
  @ApiOperation({ summary: 'Start an outbound conversation' })
  create(@CurrentCtx() ctx: TenantContext, @Body() dto: CreateConversationDto): Promise<ConversationDetailResponse> {
    return this.starter.create(ctx, dto);
  }

  @Get(':id')
  @RequirePermission('conversations.reply')
  @ApiOkResponse({ type: ConversationDetailResponse })
  @ApiOperation({ summary: 'Get a conversation with its messages' })
  get(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Query() query: GetConversationQuery,
  ): Promise<ConversationDetailResponse> {
    return this.conversations.get(ctx, id, query);
  }

  @Put(':id')
  @RequirePermission('conversations.reply')
  @ApiOkResponse({ type: ConversationResponse })
  @ApiOperation({ summary: 'Change a conversation (priority, tags, subject)' })
  update(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: UpdateConversationDto,
  ): Promise<ConversationResponse> {
    return this.actions.update(ctx, id, dto);
  }

  @Put(':id/assign')
  @RequirePermission('conversations.assign')
  @ApiOkResponse({ type: ConversationResponse })
  @ApiOperation({ summary: 'Assign a conversation to an agent or queue' })
  assign(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: AssignConversationDto,
  ): Promise<ConversationResponse> {
    return this.actions.assign(ctx, id, dto);
  }

  @Post(':id/hold')
  @RequirePermission('conversations.reply')
  @HttpCode(200)
  @ApiOkResponse({ type: ConversationResponse, description: 'OPEN → ON_HOLD (409 invalid_transition otherwise)' })
  @ApiOperation({ summary: 'Put a conversation on hold' })
  hold(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: HoldConversationDto,
  ): Promise<ConversationResponse> {
    return this.actions.hold(ctx, id, dto);
  }

  @Post(':id/resume')
  @RequirePermission('conversations.reply')
  @HttpCode(200)
  @ApiOkResponse({ type: ConversationResponse, description: 'ON_HOLD → OPEN (409 invalid_transition otherwise)' })
  @ApiOperation({ summary: 'Resume a conversation on hold' })
  resume(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<ConversationResponse> {
    return this.actions.resume(ctx, id);
  }

  @Post(':id/wrap-up')
  @RequirePermission('conversations.reply')
  @HttpCode(200)
  @ApiOkResponse({
    type: ConversationResponse,
    description: 'OPEN | ON_HOLD → RESOLVED; frees the assignee’s seat (409 invalid_transition otherwise)',
  })
  @ApiOperation({ summary: 'Wrap up (resolve) a conversation' })
  wrapUp(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: WrapUpConversationDto,
  ): Promise<ConversationResponse> {
    return this.actions.wrapUp(ctx, id, dto);
  }

  @Post(':id/notes')
  @RequirePermission('conversations.reply')
  @HttpCode(201)
  @ApiCreatedResponse({ type: ConversationNoteResponse, description: 'Internal: never sent to the customer' })
  @ApiOperation({ summary: 'Add an internal note to a conversation' })
  addNote(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: CreateConversationNoteDto,
  ): Promise<ConversationNoteResponse> {
    return this.actions.addNote(ctx, id, dto);
  }

  @Post(':id/messages')
  @RequirePermission('conversations.reply')
  @HttpCode(201)
  @ApiCreatedResponse({
    type: MessageResponse,
    description: 'Stored PENDING; delivered by a job (SENT or FAILED later)',
  })
  @ApiOperation({ summary: 'Send a reply to the contact' })
  send(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: SendMessageDto,
  ): Promise<MessageResponse> {
    return this.messages.send(ctx, id, dto);
  }
}
