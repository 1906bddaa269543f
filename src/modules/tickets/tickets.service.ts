import { Injectable } from '@nestjs/common';
import { normalizeTags } from 'src/core/domain/vocabulary';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { EventBus } from 'src/core/events/event-bus';
import type { Page } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ConversationsService } from 'src/modules/inbox';
import type {
  CreateTicketCommentDto,
  CreateTicketDto,
  ListTicketsQuery,
  TicketCommentResponse,
  TicketDetailResponse,
  TicketResponse,
  UpdateTicketDto,
} from './dto/ticket.dto';
import { toTicketCommentResponse, toTicketResponse } from './ticket.mapper';
import type { TicketEntity } from './ticket.entity';
import { TicketCommentsRepository } from './ticket-comments.repository';
import { type TicketDraft, TicketCreator } from './ticket-creator.service';
import { toTicketFilters } from './ticket-filters.util';
import { resolvedAtAfter, transitionError } from './ticket-rules.util';
import { TicketsRepository } from './tickets.repository';
import { DETAIL_COMMENTS_LIMIT } from './tickets.constants';

/** Attempts of a creation that lost a deadlock (PostgreSQL aborts one side; the retry goes through). */
const CREATE_ATTEMPTS = 3;

type TicketPatch = Omit<Partial<TicketEntity>, 'id' | 'workspaceId'>;

/** Tickets (DESIGN §6): list, detail with comments, create, edit with status rules, delete, comment. */
@Injectable()
export class TicketsService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly tickets: TicketsRepository,
    private readonly comments: TicketCommentsRepository,
    private readonly creator: TicketCreator,
    private readonly conversations: ConversationsService,
    private readonly bus: EventBus,
  ) {}

  async list(ctx: TenantContext, query: ListTicketsQuery): Promise<Page<TicketResponse>> {
    const page = await this.tickets.findPage(toTicketFilters(ctx, query), query);
    return { data: page.data.map(toTicketResponse), nextCursor: page.nextCursor };
  }

  async get(_ctx: TenantContext, id: string): Promise<TicketDetailResponse> {
    const ticket = await this.tickets.getById(id);
    const comments = await this.comments.findForTicket(ticket.id, DETAIL_COMMENTS_LIMIT);
    return { ...toTicketResponse(ticket), comments: comments.map(toTicketCommentResponse) };
  }

  /**
   * A ticket from a user (source MANUAL) or an API token (API). Linked to a conversation the caller
   * can see, it takes that conversation's contact and queue unless given, and its channel type for
   * SLA matching.
   */
  async create(ctx: TenantContext, dto: CreateTicketDto): Promise<TicketResponse> {
    let contactId = dto.contactId ?? null;
    let queueId = dto.queueId ?? null;
    let channelType: string | null = null;
    if (dto.conversationId) {
      const conversation = await this.conversations.getVisible(ctx, dto.conversationId);
      if (dto.contactId === undefined) contactId = conversation.contactId;
      if (dto.queueId === undefined) queueId = conversation.queueId;
      channelType = conversation.channelType;
    }
    const draft: TicketDraft = {
      subject: dto.subject,
      description: dto.description ?? null,
      status: dto.status ?? 'OPEN',
      priority: dto.priority,
      source: ctx.actor.type === 'api_token' ? 'API' : 'MANUAL',
      assigneeId: dto.assigneeId ?? null,
      queueId,
      contactId,
      conversationId: dto.conversationId ?? null,
      tags: normalizeTags(dto.tags ?? []),
      ...(dto.dueAt !== undefined ? { dueAt: dto.dueAt === null ? null : new Date(dto.dueAt) } : {}),
    };
    const ticket = await this.tx.runWithRetry(() => this.creator.create(draft, { channelType }), CREATE_ATTEMPTS);
    if (!ticket) throw new Error('A manual ticket was not created');
    return toTicketResponse(ticket);
  }

  /**
   * Only the fields sent change. Status: any → any, except that a CLOSED ticket can only be
   * reopened (`status: OPEN`, other fields may change with it); anything else on it is 409
   * `invalid_transition`. RESOLVED/CLOSED stamp `resolvedAt`, reopening clears it.
   */
  async update(ctx: TenantContext, id: string, dto: UpdateTicketDto): Promise<TicketResponse> {
    const result = await this.tx.run(async () => {
      const current = await this.tickets.findForUpdate(id);
      if (!current) throw AppException.notFound('Ticket');
      const patch = changesOf(current, dto);
      if (current.status === 'CLOSED' && Object.keys(patch).length > 0 && patch.status !== 'OPEN') {
        throw AppException.invalidTransition('A CLOSED ticket can only be reopened (status OPEN)');
      }
      if (patch.status !== undefined) {
        const refused = transitionError(current.status, patch.status);
        if (refused) throw AppException.invalidTransition(refused);
        const resolvedAt = resolvedAtAfter(patch.status, current.resolvedAt, new Date());
        if (resolvedAt?.getTime() !== current.resolvedAt?.getTime()) patch.resolvedAt = resolvedAt;
      }
      const changes = Object.keys(patch);
      if (changes.length === 0) return { ticket: current, changes };
      return { ticket: await this.tickets.update(current.id, patch), changes };
    });
    const response = toTicketResponse(result.ticket);
    if (result.changes.length > 0) {
      await this.bus.publish('ticket.updated', ctx.workspaceId, { ticket: response, changes: result.changes });
    }
    return response;
  }

  async remove(_ctx: TenantContext, id: string): Promise<void> {
    await this.tickets.deleteById(id);
  }

  /** A comment (internal or not); a CLOSED ticket takes none (409 invalid_transition). */
  async addComment(ctx: TenantContext, id: string, dto: CreateTicketCommentDto): Promise<TicketCommentResponse> {
    const comment = await this.tx.run(async () => {
      const ticket = await this.tickets.findForUpdate(id);
      if (!ticket) throw AppException.notFound('Ticket');
      if (ticket.status === 'CLOSED') {
        throw AppException.invalidTransition('A CLOSED ticket takes no comments; reopen it first');
      }
      const created = await this.comments.insert({
        ticketId: ticket.id,
        authorId: ctx.actor.userId,
        body: dto.body,
        internal: dto.internal ?? false,
      });
      await this.tickets.touch(ticket.id);
      return created;
    });
    return toTicketCommentResponse(comment);
  }
}

/** The fields of `dto` that differ from the ticket, as a patch. */
function changesOf(current: TicketEntity, dto: UpdateTicketDto): TicketPatch {
  const patch: TicketPatch = {};
  if (dto.subject !== undefined && dto.subject !== current.subject) patch.subject = dto.subject;
  if (dto.description !== undefined && (dto.description ?? null) !== current.description) {
    patch.description = dto.description ?? null;
  }
  if (dto.status !== undefined && dto.status !== current.status) patch.status = dto.status;
  if (dto.priority !== undefined && dto.priority !== current.priority) patch.priority = dto.priority;
  for (const field of ['assigneeId', 'queueId', 'contactId'] as const) {
    const value = dto[field];
    if (value !== undefined && (value?.toLowerCase() ?? null) !== current[field])
      patch[field] = value?.toLowerCase() ?? null;
  }
  if (dto.tags !== undefined) {
    const tags = normalizeTags(dto.tags);
    if (tags.join('\u0000') !== current.tags.join('\u0000')) patch.tags = tags;
  }
  if (dto.dueAt !== undefined) {
    const dueAt = dto.dueAt === null ? null : new Date(dto.dueAt);
    if (dueAt?.getTime() !== current.dueAt?.getTime()) patch.dueAt = dueAt;
  }
  return patch;
}
