import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { AnyMember, RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import { IdParam } from 'src/core/http/uuid-param.dto';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ConversationsService } from './conversations.service';
import {
  ConversationDetailResponse,
  GetConversationQuery,
  MessageResponse,
  SendMessageDto,
} from './dto/conversation.dto';
import { MessagesService } from './messages.service';

@ApiTags('conversations')
@Controller('conversations')
export class ConversationsController {
  constructor(
    private readonly conversations: ConversationsService,
    private readonly messages: MessagesService,
  ) {}

  @Get(':id')
  @AnyMember()
  @ApiOkResponse({ type: ConversationDetailResponse })
  get(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Query() query: GetConversationQuery,
  ): Promise<ConversationDetailResponse> {
    return this.conversations.get(ctx, id, query);
  }

  @Post(':id/messages')
  @RequirePermission('conversations.reply')
  @HttpCode(201)
  @ApiCreatedResponse({
    type: MessageResponse,
    description: 'Stored PENDING; delivered by a job (SENT or FAILED later)',
  })
  send(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: SendMessageDto,
  ): Promise<MessageResponse> {
    return this.messages.send(ctx, id, dto);
  }
}
