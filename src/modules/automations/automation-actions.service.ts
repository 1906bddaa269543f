import { Injectable } from '@nestjs/common';
import { AppException } from 'src/core/errors/app.exception';
import { getTenantContext } from 'src/core/tenancy/tenant-context';
import { AiConversationStatesService } from 'src/modules/ai-agents';
import type { Priority } from 'src/core/domain/vocabulary';
import { ConversationActionsService, ConversationsService, MessagesService } from 'src/modules/inbox';
import { type TicketStatus, TicketsService } from 'src/modules/tickets';
import type { AutomationAction } from './automation.types';
import { type EvaluationSubject, renderPlaceholders } from './evaluation.util';

/** What an action applies to: the event's conversation, or its ticket on ticket triggers. */
export interface ActionTarget {
  readonly conversationId: string | null;
  /** Set on ticket.* triggers: SET_PRIORITY, ADD_TAGS, SET_STATUS, ASSIGN_* change the ticket. */
  readonly ticketId: string | null;
}

/** What an action planned by `/test` would do (placeholders rendered, nothing done). */
export interface PlannedAction {
  readonly type: string;
  readonly params: Record<string, unknown>;
}

/**
 * Runs automation actions and flow steps through the owning modules' services — the same rules,
 * events and webhooks as a person doing it — as the workspace's SYSTEM actor (no permission checks:
 * the engine runs in `runAsWorkspace`). Joins the caller's transaction.
 */
@Injectable()
export class AutomationActionsService {
  constructor(
    private readonly conversations: ConversationsService,
    private readonly conversationActions: ConversationActionsService,
    private readonly messages: MessagesService,
    private readonly tickets: TicketsService,
    private readonly aiStates: AiConversationStatesService,
  ) {}

  /** The action with its text parameters rendered for this subject. */
  plan(action: AutomationAction, subject: EvaluationSubject): PlannedAction {
    const params: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(action.params)) {
      if (typeof value === 'string' && ['text', 'subject', 'caption'].includes(key)) {
        params[key] = renderPlaceholders(value, subject);
      } else params[key] = value;
    }
    return { type: action.type, params };
  }

  /**
   * Runs one action. Returns a patch for the subject (CREATE_TICKET's ticket, so later actions can
   * say `{{ticket.key}}`), or null.
   */
  async run(
    action: AutomationAction,
    target: ActionTarget,
    subject: EvaluationSubject,
  ): Promise<EvaluationSubject | null> {
    const ctx = getTenantContext();
    const { params } = this.plan(action, subject);
    const onTicket = target.ticketId !== null;
    const conversationId = () => {
      if (!target.conversationId) throw AppException.validation('The event has no conversation to act on');
      return target.conversationId;
    };
    switch (action.type) {
      case 'ASSIGN_QUEUE':
        if (onTicket) await this.tickets.update(ctx, target.ticketId as string, { queueId: params.queueId as string });
        else await this.conversationActions.assign(ctx, conversationId(), { queueId: params.queueId as string });
        return null;
      case 'ASSIGN_AGENT':
        if (onTicket)
          await this.tickets.update(ctx, target.ticketId as string, { assigneeId: params.userId as string });
        else await this.conversationActions.assign(ctx, conversationId(), { assigneeId: params.userId as string });
        return null;
      case 'SET_PRIORITY':
        if (onTicket)
          await this.tickets.update(ctx, target.ticketId as string, { priority: params.priority as Priority });
        else await this.conversationActions.update(ctx, conversationId(), { priority: params.priority as Priority });
        return null;
      case 'ADD_TAGS': {
        const add = params.tags as string[];
        if (onTicket) {
          const ticket = await this.tickets.get(ctx, target.ticketId as string);
          await this.tickets.update(ctx, ticket.id, { tags: union(ticket.tags, add) });
        } else {
          const conversation = await this.conversations.getVisible(ctx, conversationId());
          const tags = union(conversation.tags, add);
          if (tags.length !== conversation.tags.length)
            await this.conversationActions.update(ctx, conversation.id, { tags });
        }
        return null;
      }
      case 'SET_STATUS':
        await this.setStatus(params.status as string, target, onTicket);
        return null;
      case 'SEND_REPLY':
      case 'SEND_TEXT':
        await this.messages.sendReply(
          conversationId(),
          { text: params.text as string },
          { type: 'AUTOMATION', id: null },
        );
        return null;
      case 'SEND_BUTTONS':
        await this.messages.sendReply(
          conversationId(),
          { text: params.text as string, buttons: params.buttons as { title: string; payload: string }[] },
          { type: 'AUTOMATION', id: null },
        );
        return null;
      case 'SEND_IMAGE':
        await this.messages.sendReply(
          conversationId(),
          { imageUrl: params.url as string, text: (params.caption as string | undefined) || null },
          { type: 'AUTOMATION', id: null },
        );
        return null;
      case 'ADD_NOTE':
        await this.conversationActions.addNote(ctx, conversationId(), { text: params.text as string });
        return null;
      case 'CREATE_TICKET': {
        const id = conversationId();
        const subjectText =
          (params.subject as string | undefined)?.trim() ||
          (typeof subject.message?.text === 'string' && subject.message.text.trim()
            ? subject.message.text.trim().slice(0, 200)
            : `Conversation with ${String(subject.contact?.name ?? 'a customer')}`);
        const ticket = await this.tickets.create(ctx, {
          subject: subjectText.slice(0, 200),
          conversationId: id,
          ...(params.priority ? { priority: params.priority as Priority } : {}),
        });
        return { ticket: ticket as unknown as Record<string, unknown> };
      }
      case 'HANDOFF_AI':
        await this.aiStates.handToAi(conversationId());
        return null;
      case 'HANDOFF_HUMAN':
        await this.aiStates.handToHuman(conversationId());
        return null;
      default:
        throw new Error(`Unknown action ${action.type}`);
    }
  }

  private async setStatus(status: string, target: ActionTarget, onTicket: boolean): Promise<void> {
    const ctx = getTenantContext();
    if (onTicket) {
      if (!['OPEN', 'IN_PROGRESS', 'WAITING', 'RESOLVED', 'CLOSED'].includes(status)) {
        throw AppException.validation(`${status} is not a ticket status`);
      }
      await this.tickets.update(ctx, target.ticketId as string, { status: status as TicketStatus });
      return;
    }
    if (!target.conversationId) throw AppException.validation('The event has no conversation to act on');
    const current = await this.conversations.getVisible(ctx, target.conversationId);
    if (current.status === status) return;
    if (status === 'ON_HOLD') await this.conversationActions.hold(ctx, current.id, { reason: 'Automation' });
    else if (status === 'OPEN') await this.conversationActions.resume(ctx, current.id);
    else if (status === 'RESOLVED') await this.conversationActions.wrapUp(ctx, current.id, {});
    else throw AppException.validation(`${status} is not a conversation status`);
  }
}

function union(current: readonly string[], add: readonly string[]): string[] {
  const seen = new Set(current.map((t) => t.toLowerCase()));
  const out = [...current];
  for (const tag of add) {
    if (!seen.has(tag.toLowerCase())) {
      seen.add(tag.toLowerCase());
      out.push(tag);
    }
  }
  return out;
}
