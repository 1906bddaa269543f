import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import { CursorPaginationQuery, type Page } from 'src/core/http/pagination';
import { IdParam } from 'src/core/http/uuid-param.dto';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { AiAgentsService } from './ai-agents.service';
import { AiConversationsService } from './ai-conversations.service';
import {
  AiAgentListResponse,
  AiAgentMetaResponse,
  AiAgentResponse,
  AiReplyDto,
  AiReplyResponse,
  CreateAiAgentDto,
  PlaygroundDto,
  PlaygroundResponse,
  TranslateDto,
  TranslateResponse,
  UpdateAiAgentDto,
} from './dto/ai-agent.dto';

@ApiTags('ai-agents')
@Controller('ai-agents')
export class AiAgentsController {
  constructor(private readonly agents: AiAgentsService) {}

  @Get('meta')
  @RequirePermission('ai_agents.manage')
  @ApiOperation({ summary: 'Providers (configured or not), their models, and the defaults' })
  @ApiOkResponse({ type: AiAgentMetaResponse })
  meta(@CurrentCtx() ctx: TenantContext): Promise<AiAgentMetaResponse> {
    return this.agents.meta(ctx);
  }

  @Get()
  @RequirePermission('ai_agents.manage')
  @ApiOperation({ summary: 'List AI agents, newest first' })
  @ApiOkResponse({ type: AiAgentListResponse })
  list(@CurrentCtx() ctx: TenantContext, @Query() query: CursorPaginationQuery): Promise<Page<AiAgentResponse>> {
    return this.agents.list(ctx, query);
  }

  @Post()
  @RequirePermission('ai_agents.manage')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an AI agent' })
  @ApiCreatedResponse({ type: AiAgentResponse })
  create(@CurrentCtx() ctx: TenantContext, @Body() dto: CreateAiAgentDto): Promise<AiAgentResponse> {
    return this.agents.create(ctx, dto);
  }

  @Get(':id')
  @RequirePermission('ai_agents.manage')
  @ApiOperation({ summary: 'One AI agent' })
  @ApiOkResponse({ type: AiAgentResponse })
  @ApiNotFoundResponse()
  get(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<AiAgentResponse> {
    return this.agents.get(ctx, id);
  }

  @Put(':id')
  @RequirePermission('ai_agents.manage')
  @ApiOperation({ summary: 'Change an AI agent (only the fields sent)' })
  @ApiOkResponse({ type: AiAgentResponse })
  @ApiNotFoundResponse()
  update(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: UpdateAiAgentDto,
  ): Promise<AiAgentResponse> {
    return this.agents.update(ctx, id, dto);
  }

  @Delete(':id')
  @RequirePermission('ai_agents.manage')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete an AI agent' })
  @ApiNoContentResponse()
  @ApiNotFoundResponse()
  remove(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<void> {
    return this.agents.remove(ctx, id);
  }

  @Post(':id/playground')
  @RequirePermission('ai_agents.manage')
  @HttpCode(200)
  @ApiOperation({ summary: 'Ask the agent a question; stores nothing' })
  @ApiOkResponse({ type: PlaygroundResponse })
  @ApiNotFoundResponse()
  playground(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: PlaygroundDto,
  ): Promise<PlaygroundResponse> {
    return this.agents.playground(ctx, id, dto);
  }
}

/** The AI tools human agents use inside a conversation. */
@ApiTags('conversations')
@Controller('conversations')
export class AiConversationToolsController {
  constructor(private readonly ai: AiConversationsService) {}

  @Post(':id/ai-reply')
  @RequirePermission('conversations.reply')
  @HttpCode(200)
  @ApiOperation({ summary: 'Draft (or send, as an AI reply) an answer to the customer' })
  @ApiOkResponse({ type: AiReplyResponse })
  @ApiNotFoundResponse()
  aiReply(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: AiReplyDto,
  ): Promise<AiReplyResponse> {
    return this.ai.aiReply(ctx, id, dto);
  }

  @Post(':id/translate')
  @RequirePermission('conversations.reply')
  @HttpCode(200)
  @ApiOperation({ summary: 'Translate a message of the conversation (or a text) through the LLM' })
  @ApiOkResponse({ type: TranslateResponse })
  @ApiServiceUnavailableResponse({ description: 'provider_not_configured' })
  translate(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: TranslateDto,
  ): Promise<TranslateResponse> {
    return this.ai.translate(ctx, id, dto);
  }
}
