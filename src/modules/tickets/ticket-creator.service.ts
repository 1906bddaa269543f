import { Injectable } from '@nestjs/common';
import type { Priority } from 'src/core/domain/vocabulary';
import { TransactionHost } from 'src/core/database/transaction-host';
import { EventBus } from 'src/core/events/event-bus';
import { getTenantContext } from 'src/core/tenancy/tenant-context';
import { SlaService } from 'src/modules/sla';
import { toTicketResponse } from './ticket.mapper';
import type { TicketEntity } from './ticket.entity';
import { isDone } from './ticket-rules.util';
import { TicketSettingsService } from './ticket-settings.service';
import { TicketsRepository } from './tickets.repository';
import type { TicketSource, TicketStatus } from './tickets.constants';

export interface TicketDraft {
  readonly subject: string;
  readonly description: string | null;
  readonly status: TicketStatus;
  /** Undefined: the settings' defaultPriority. */
  readonly priority?: Priority;
  readonly source: TicketSource;
  readonly assigneeId: string | null;
  readonly queueId: string | null;
  readonly contactId: string | null;
  readonly conversationId: string | null;
  readonly tags: string[];
  /** Undefined: creation + the matching SLA policy's resolution minutes (null when none matches). */
  readonly dueAt?: Date | null;
}

export interface CreateOptions {
  /** The linked conversation's channel type, for SLA conditions on channel types. */
  readonly channelType: string | null;
  /** Automatic tickets: a second one for the same conversation is not created (returns null). */
  readonly ifAbsent?: boolean;
}

/**
 * Creates tickets — manual, API and automatic alike: the next key of the workspace's sequence (with
 * the settings' prefix), the SLA due time, and `ticket.created` once the transaction commits.
 * Joins the caller's transaction (the inbound pipeline's, for the automatic ticket).
 */
@Injectable()
export class TicketCreator {
  constructor(
    private readonly tx: TransactionHost,
    private readonly tickets: TicketsRepository,
    private readonly settings: TicketSettingsService,
    private readonly sla: SlaService,
    private readonly bus: EventBus,
  ) {}

  create(draft: TicketDraft, options: CreateOptions): Promise<TicketEntity | null> {
    return this.tx.run(async () => {
      if (
        options.ifAbsent &&
        draft.source !== 'CONVERSATION' &&
        draft.conversationId &&
        (await this.tickets.existsAutomatic(draft.conversationId))
      ) {
        return null;
      }
      const settings = await this.settings.current();
      const priority = draft.priority ?? settings.defaultPriority;
      const createdAt = new Date();
      const dueAt =
        draft.dueAt !== undefined
          ? draft.dueAt
          : await this.sla.ticketDueAt(
              { priority, channelType: options.channelType, queueId: draft.queueId },
              createdAt,
            );
      const automatic = options.ifAbsent && draft.conversationId && draft.source === 'CONVERSATION';
      if (automatic) {
        // One statement: look-up, number and insert (no number is taken when the ticket exists).
        const ticket = await this.tickets.createAutomaticIfAbsent(
          {
            ...draft,
            conversationId: draft.conversationId!,
            source: 'CONVERSATION',
            priority,
            dueAt,
            resolvedAt: isDone(draft.status) ? createdAt : null,
            createdAt,
          },
          settings.keyPrefix,
        );
        if (ticket) await this.announce(ticket);
        return ticket;
      }
      const number = await this.tickets.nextNumber();
      const ticket = await this.tickets.create(
        {
          ...draft,
          priority,
          dueAt,
          resolvedAt: isDone(draft.status) ? createdAt : null,
          createdAt,
          number,
          key: `${settings.keyPrefix}-${number}`,
        },
        { ifAbsent: options.ifAbsent },
      );
      if (ticket) await this.announce(ticket);
      return ticket;
    });
  }

  /** `ticket.created`, written to the outbox in the creating transaction. */
  private async announce(ticket: TicketEntity): Promise<void> {
    await this.bus.publish('ticket.created', getTenantContext().workspaceId, { ticket: toTicketResponse(ticket) });
  }
}
