import { Injectable } from '@nestjs/common';
import { AppException } from 'src/core/errors/app.exception';
import { type Page, decodeCursor, encodeCursor } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ContactsService } from 'src/modules/contacts';
import { QueuesService } from 'src/modules/queues';
import type { ConversationEntity, SuggestedReply } from './conversation.entity';
import type { ConversationViewFilters } from './conversation-view.entity';
import { ConversationNotesRepository } from './conversation-notes.repository';
import { ConversationViewsService } from './conversation-views.service';
import {
  type ConversationFilters,
  type ConversationVisibility,
  ConversationsRepository,
} from './conversations.repository';
import type { ConversationDetailResponse, ConversationResponse, GetConversationQuery } from './dto/conversation.dto';
import type { ListConversationsQuery } from './dto/list-conversations.query';
import { toConversationResponse, toMessageResponse, toNoteResponse } from './inbox.mapper';
import { MessagesRepository } from './messages.repository';

/** Messages shown with a conversation (and per `messagesBefore` page). */
export const CONVERSATION_MESSAGES_LIMIT = 100;
/** Notes shown with a conversation (the latest, oldest first). */
export const CONVERSATION_NOTES_LIMIT = 200;

/** Reading conversations: the inbox list, one conversation with its history and notes, and who may see what. */
@Injectable()
export class ConversationsService {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly messages: MessagesRepository,
    private readonly notes: ConversationNotesRepository,
    private readonly views: ConversationViewsService,
    private readonly contacts: ContactsService,
    private readonly queues: QueuesService,
  ) {}

  /**
   * `GET /conversations`: newest activity first, filtered (a view's filters first, the query's on
   * top), limited to what the caller may see.
   */
  async list(ctx: TenantContext, query: ListConversationsQuery): Promise<Page<ConversationResponse>> {
    const saved = query.viewId ? await this.views.filtersOf(ctx, query.viewId) : {};
    const filters = toFilters(ctx, { ...saved, ...definedFilters(query) }, query);
    const page = await this.conversations.findPage(filters, await this.visibility(ctx), query);
    const names = await this.conversations.contactNames(page.data.map((c) => c.contactId));
    return {
      data: page.data.map((c) => toConversationResponse(c, names.get(c.contactId) ?? null)),
      nextCursor: page.nextCursor,
    };
  }

  /** `GET /conversations/:id`: the conversation with its latest 100 messages (oldest first) and its notes. */
  async get(ctx: TenantContext, id: string, query: GetConversationQuery): Promise<ConversationDetailResponse> {
    return this.detail(await this.getVisible(ctx, id), query);
  }

  /** The detail of a conversation the caller is known to be allowed to see. */
  async detail(
    conversation: ConversationEntity,
    query: GetConversationQuery = {},
  ): Promise<ConversationDetailResponse> {
    const before = query.messagesBefore ? seqOf(query.messagesBefore) : null;
    // One after another: inside a transaction all three share one connection, and a pg client
    // given overlapping queries only queues them (deprecated; an error in pg 9).
    const page = await this.messages.findLatest(conversation.id, CONVERSATION_MESSAGES_LIMIT, before);
    const notes = await this.notes.findLatest(conversation.id, CONVERSATION_NOTES_LIMIT);
    const response = await this.toResponse(conversation);
    const oldest = page.rows[page.rows.length - 1];
    return {
      ...response,
      messages: [...page.rows].reverse().map(toMessageResponse),
      messagesBefore: page.hasMore && oldest ? encodeCursor([oldest.seq]) : null,
      notes: notes.map(toNoteResponse),
    };
  }

  /** The response of one conversation (with its contact's name). */
  async toResponse(conversation: ConversationEntity): Promise<ConversationResponse> {
    const names = await this.conversations.contactNames([conversation.contactId]);
    return toConversationResponse(conversation, names.get(conversation.contactId) ?? null);
  }

  /** For the AI agents module: the draft shown to human agents (`suggestedReply`); null clears it. */
  async setSuggestedReply(conversationId: string, reply: SuggestedReply | null): Promise<void> {
    await this.conversations.update(conversationId, { suggestedReply: reply });
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

  /** Null (no restriction) with `conversations.view_all` or for an API token; else the caller's rule. */
  private async visibility(ctx: TenantContext): Promise<ConversationVisibility | null> {
    if (ctx.permissions.has('conversations.view_all') || ctx.actor.type !== 'user') return null;
    const userId = ctx.actor.userId;
    if (!userId) return { userId: '00000000-0000-0000-0000-000000000000', queueIds: [] };
    return { userId, queueIds: await this.queues.memberQueueIds(userId) };
  }
}

/** The view-able filters given in the query (they override a view's). */
function definedFilters(query: ListConversationsQuery): ConversationViewFilters {
  const entries = Object.entries({
    status: query.status?.length ? query.status : undefined,
    priority: query.priority?.length ? query.priority : undefined,
    queueId: query.queueId,
    assigneeId: query.assigneeId,
    channelId: query.channelId,
    tag: query.tag || undefined,
    search: query.search || undefined,
  }).filter(([, v]) => v !== undefined);
  return Object.fromEntries(entries);
}

/** `assigneeId=me` is the calling user (an API token has none: 400); `unassigned` is null. */
function toFilters(
  ctx: TenantContext,
  f: ConversationViewFilters,
  query: Pick<ListConversationsQuery, 'contactId' | 'from' | 'to'>,
): ConversationFilters {
  let assigneeId: string | null | undefined;
  if (f.assigneeId === 'unassigned') assigneeId = null;
  else if (f.assigneeId === 'me') {
    if (!ctx.actor.userId) throw AppException.field('assigneeId', 'me needs a user (an API token has none)');
    assigneeId = ctx.actor.userId;
  } else assigneeId = f.assigneeId;
  if (query.from && query.to && new Date(query.from).getTime() >= new Date(query.to).getTime()) {
    throw AppException.field('from', 'must be before to');
  }
  return {
    statuses: f.status,
    priorities: f.priority,
    search: f.search,
    assigneeId,
    queueId: f.queueId,
    channelId: f.channelId,
    contactId: query.contactId,
    tag: f.tag,
    from: query.from,
    to: query.to,
  };
}

function seqOf(cursor: string): string {
  const [seq] = decodeCursor(cursor, 1);
  const value = String(seq);
  if (!/^\d{1,19}$/.test(value)) throw AppException.field('messagesBefore', 'is not a valid cursor');
  return value;
}
