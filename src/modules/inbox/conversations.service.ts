import { Injectable } from '@nestjs/common';
import { AppException } from 'src/core/errors/app.exception';
import { decodeCursor, encodeCursor } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ContactsService } from 'src/modules/contacts';
import { QueuesService } from 'src/modules/queues';
import type { ConversationEntity } from './conversation.entity';
import { ConversationsRepository } from './conversations.repository';
import type { ConversationDetailResponse, GetConversationQuery } from './dto/conversation.dto';
import { toConversationResponse, toMessageResponse } from './inbox.mapper';
import { MessagesRepository } from './messages.repository';

/** Messages shown with a conversation (and per `messagesBefore` page). */
export const CONVERSATION_MESSAGES_LIMIT = 100;

/** Conversations (the agent workflows on top of them come with the next issue). */
@Injectable()
export class ConversationsService {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly messages: MessagesRepository,
    private readonly contacts: ContactsService,
    private readonly queues: QueuesService,
  ) {}

  /** `GET /conversations/:id`: the conversation with its latest 100 messages, oldest first. */
  async get(ctx: TenantContext, id: string, query: GetConversationQuery): Promise<ConversationDetailResponse> {
    const conversation = await this.getVisible(ctx, id);
    const before = query.messagesBefore ? seqOf(query.messagesBefore) : null;
    const page = await this.messages.findLatest(conversation.id, CONVERSATION_MESSAGES_LIMIT, before);
    const oldest = page.rows[page.rows.length - 1];
    return {
      ...toConversationResponse(conversation, await this.contactName(ctx, conversation.contactId)),
      messages: [...page.rows].reverse().map(toMessageResponse),
      messagesBefore: page.hasMore && oldest ? encodeCursor([oldest.seq]) : null,
    };
  }

  /**
   * The conversation if the caller may see it: with `conversations.view_all` any; otherwise those
   * assigned to them, or unassigned in one of their queues (DESIGN §3.4). Others are 404.
   */
  async getVisible(ctx: TenantContext, id: string): Promise<ConversationEntity> {
    const conversation = await this.conversations.getById(id);
    if (ctx.permissions.has('conversations.view_all') || ctx.actor.type !== 'user') return conversation;
    const userId = ctx.actor.userId;
    if (userId && conversation.assigneeId === userId) return conversation;
    if (userId && conversation.assigneeId === null && conversation.queueId) {
      if ((await this.queues.memberQueueIds(userId)).includes(conversation.queueId)) return conversation;
    }
    throw AppException.notFound('Conversation');
  }

  /**
   * For the SLA module: writes the due times of the policy that applies (`firstResponseDueAt`,
   * `resolutionDueAt`). Joins the caller's transaction (the inbound pipeline's SLA stage).
   */
  applySla(
    conversationId: string,
    due: { firstResponseDueAt: Date | null; resolutionDueAt: Date | null },
  ): Promise<void> {
    return this.conversations.setDueDates(conversationId, due.firstResponseDueAt, due.resolutionDueAt);
  }

  async contactName(ctx: TenantContext, contactId: string): Promise<string | null> {
    try {
      return (await this.contacts.get(ctx, contactId)).name;
    } catch (error) {
      if (error instanceof AppException && error.status === 404) return null;
      throw error;
    }
  }
}

function seqOf(cursor: string): string {
  const [seq] = decodeCursor(cursor, 1);
  const value = String(seq);
  if (!/^\d{1,19}$/.test(value)) throw AppException.field('messagesBefore', 'is not a valid cursor');
  return value;
}
