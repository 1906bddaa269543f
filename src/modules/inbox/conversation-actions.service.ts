import { Injectable } from '@nestjs/common';
import { AppException } from 'src/core/errors/app.exception';
import { TransactionHost } from 'src/core/database/transaction-host';
import { EventBus } from 'src/core/events/event-bus';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { RoutingService } from 'src/modules/queues';
import type { ConversationEntity, ConversationStatus } from './conversation.entity';
import { ConversationNotesRepository } from './conversation-notes.repository';
import { ConversationsRepository, translateForeignKey } from './conversations.repository';
import { ConversationsService } from './conversations.service';
import type {
  AssignConversationDto,
  ConversationNoteResponse,
  CreateConversationNoteDto,
  HoldConversationDto,
  UpdateConversationDto,
  WrapUpConversationDto,
} from './dto/conversation-actions.dto';
import type { ConversationResponse } from './dto/conversation.dto';
import { toNoteResponse } from './inbox.mapper';

/**
 * What an agent does to a conversation (DESIGN §5.1): edit, assign, hold, resume, wrap up, note.
 * Every action first checks the caller may see the conversation (404 otherwise). Transitions are one
 * conditional UPDATE each (`WHERE status IN (…)`), so two concurrent ones cannot both succeed:
 *
 *   OPEN →hold→ ON_HOLD →resume→ OPEN;  OPEN | ON_HOLD →wrap-up→ RESOLVED;  anything else → 409.
 *
 * The wrap-up frees the assignee's seat: after it commits, the queues module assigns the next waiting
 * conversation (oldest first) to whoever is available — usually the agent who just finished.
 */
@Injectable()
export class ConversationActionsService {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly access: ConversationsService,
    private readonly notes: ConversationNotesRepository,
    private readonly routing: RoutingService,
    private readonly bus: EventBus,
    private readonly tx: TransactionHost,
  ) {}

  /** `PUT /conversations/:id`: priority, tags (replaced), subject (null clears). */
  async update(ctx: TenantContext, id: string, dto: UpdateConversationDto): Promise<ConversationResponse> {
    const current = await this.access.getVisible(ctx, id);
    const patch: Partial<ConversationEntity> = {
      ...(dto.priority !== undefined ? { priority: dto.priority } : {}),
      ...(dto.tags !== undefined ? { tags: dto.tags } : {}),
      ...(dto.subject !== undefined ? { subject: dto.subject } : {}),
    };
    const changes = Object.keys(patch);
    if (changes.length === 0) return this.access.toResponse(current);
    return this.tx.run(async () => {
      const updated = await this.conversations.update(current.id, patch);
      return this.published(ctx, updated, 'updated', changes);
    });
  }

  /**
   * `PUT /conversations/:id/assign`. `assigneeId` must be a member of the workspace and `queueId` a
   * queue of it (404 naming it otherwise); capacity does not limit a human's choice. A RESOLVED
   * conversation cannot be reassigned (409). The previous assignee's freed seat goes to the next
   * waiting conversation of their queues; an unassigned conversation waits in its queue (and is
   * routed at once if someone there is available).
   */
  async assign(ctx: TenantContext, id: string, dto: AssignConversationDto): Promise<ConversationResponse> {
    if (dto.assigneeId === undefined && dto.queueId === undefined) {
      throw AppException.validation('Give assigneeId (a member, or null to unassign) or queueId', [
        { field: 'assigneeId', message: 'or queueId is required' },
      ]);
    }
    const current = await this.access.getVisible(ctx, id);
    if (current.status === 'RESOLVED')
      throw AppException.invalidTransition('A RESOLVED conversation cannot be reassigned');
    const patch: Partial<ConversationEntity> = {
      ...(dto.assigneeId !== undefined
        ? { assigneeId: dto.assigneeId, assignedAt: assignedAt(dto.assigneeId, current) }
        : {}),
      ...(dto.queueId !== undefined ? { queueId: dto.queueId } : {}),
    };
    const { updated, response } = await this.tx.run(async () => {
      let moved: ConversationEntity | null;
      try {
        moved = await this.conversations.transition(current.id, ['OPEN', 'ON_HOLD'], patch);
      } catch (error) {
        throw translateForeignKey(error);
      }
      if (!moved) throw AppException.invalidTransition('A RESOLVED conversation cannot be reassigned');
      return { updated: moved, response: await this.published(ctx, moved, 'assigned', Object.keys(patch)) };
    });
    const previous = current.assigneeId;
    if (previous && previous !== updated.assigneeId) await this.routing.onCapacityFreed(previous);
    if (!updated.assigneeId && updated.queueId && updated.status === 'OPEN') {
      if ((await this.routing.assignWaiting([updated.queueId])) > 0) {
        return this.access.toResponse(await this.conversations.getById(updated.id));
      }
    }
    return response;
  }

  /** OPEN → ON_HOLD with the reason. */
  async hold(ctx: TenantContext, id: string, dto: HoldConversationDto): Promise<ConversationResponse> {
    return this.tx.run(async () => {
      const updated = await this.move(ctx, id, 'hold', ['OPEN'], {
        status: 'ON_HOLD',
        onHoldReason: dto.reason || null,
      });
      return this.published(ctx, updated, 'held', ['status', 'onHoldReason']);
    });
  }

  /** ON_HOLD → OPEN; the hold reason is cleared. */
  async resume(ctx: TenantContext, id: string): Promise<ConversationResponse> {
    return this.tx.run(async () => {
      const updated = await this.move(ctx, id, 'resume', ['ON_HOLD'], { status: 'OPEN', onHoldReason: null });
      return this.published(ctx, updated, 'resumed', ['status', 'onHoldReason']);
    });
  }

  /**
   * OPEN | ON_HOLD → RESOLVED: stores `wrapUp`, stamps `resolvedAt`, then publishes
   * `conversation.updated` and `conversation.resolved` (`{conversationId, conversation}`: the tickets
   * module resolves the automatic ticket when resolveWithConversation is on) and frees the seat.
   */
  async wrapUp(ctx: TenantContext, id: string, dto: WrapUpConversationDto): Promise<ConversationResponse> {
    const { updated, response } = await this.tx.run(async () => {
      const resolved = await this.move(ctx, id, 'wrap up', ['OPEN', 'ON_HOLD'], {
        status: 'RESOLVED',
        wrapUp: { outcome: dto.outcome || null, note: dto.note || null },
        resolvedAt: new Date(),
        onHoldReason: null,
      });
      const published = await this.published(ctx, resolved, 'resolved', ['status', 'wrapUp', 'resolvedAt']);
      await this.bus.publish('conversation.resolved', ctx.workspaceId, {
        conversationId: resolved.id,
        conversation: published,
      });
      return { updated: resolved, response: published };
    });
    if (updated.assigneeId) await this.routing.onCapacityFreed(updated.assigneeId);
    return response;
  }

  /** `POST /conversations/:id/notes`: an internal note, never sent to the customer. */
  async addNote(ctx: TenantContext, id: string, dto: CreateConversationNoteDto): Promise<ConversationNoteResponse> {
    const conversation = await this.access.getVisible(ctx, id);
    const note = await this.notes.insert({
      conversationId: conversation.id,
      authorId: ctx.actor.userId,
      text: dto.text,
    });
    return toNoteResponse(note);
  }

  private async move(
    ctx: TenantContext,
    id: string,
    action: string,
    from: readonly ConversationStatus[],
    patch: Partial<ConversationEntity>,
  ): Promise<ConversationEntity> {
    const current = await this.access.getVisible(ctx, id);
    const updated = await this.conversations.transition(current.id, from, patch);
    if (updated) return updated;
    const now = (await this.conversations.getById(current.id)).status;
    throw AppException.invalidTransition(`Cannot ${action} a conversation that is ${now}`);
  }

  /** Publishes `conversation.updated` (in the caller's transaction) and returns the response. */
  private async published(
    ctx: TenantContext,
    conversation: ConversationEntity,
    change: string,
    changes: string[],
  ): Promise<ConversationResponse> {
    const response = await this.access.toResponse(conversation);
    await this.bus.publish('conversation.updated', ctx.workspaceId, {
      conversationId: conversation.id,
      conversation: response,
      change,
      changes,
    });
    return response;
  }
}

/** When the (new) assignee got it: kept when unchanged, now for someone new, null when unassigned. */
function assignedAt(assigneeId: string | null, current: ConversationEntity): Date | null {
  if (assigneeId === null) return null;
  return assigneeId === current.assigneeId ? current.assignedAt : new Date();
}
