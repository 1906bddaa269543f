import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { type DomainEvent, EventBus } from 'src/core/events/event-bus';
import { runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { ContactMergeHooks } from 'src/modules/contacts';
import { InboundPipeline, type InboundStageContext, InboundStageOrder } from 'src/modules/inbound';
import { toTicketResponse } from './ticket.mapper';
import type { TicketEntity } from './ticket.entity';
import { TicketCreator } from './ticket-creator.service';
import { automaticSubject } from './ticket-rules.util';
import { TicketSettingsService } from './ticket-settings.service';
import { TicketsRepository } from './tickets.repository';
import { MAX_DESCRIPTION_LENGTH } from './tickets.constants';

/**
 * What tickets do on their own:
 *
 * - the automatic ticket (DESIGN §6, SPEC §1 step 4): a pipeline stage at InboundStageOrder.Ticket,
 *   after `conversation.created` is published. One ticket per new conversation when
 *   `autoCreateFromConversation` is on; idempotent (a unique index on the conversation's automatic
 *   ticket, and the stage only runs for newly stored messages);
 * - `resolveWithConversation`: on `conversation.resolved`, the conversation's automatic ticket is
 *   RESOLVED (manual tickets linked to it are left alone: they often track follow-up work);
 * - contact merge: the duplicates' tickets move to the primary contact.
 */
@Injectable()
export class AutomaticTicketsService implements OnModuleInit {
  private readonly logger = new Logger('AutomaticTickets');

  constructor(
    private readonly tx: TransactionHost,
    private readonly creator: TicketCreator,
    private readonly settings: TicketSettingsService,
    private readonly tickets: TicketsRepository,
    private readonly bus: EventBus,
    private readonly pipeline: InboundPipeline,
    private readonly mergeHooks: ContactMergeHooks,
  ) {}

  onModuleInit(): void {
    this.pipeline.register({
      name: 'tickets.auto-create',
      order: InboundStageOrder.Ticket,
      run: async (context) => {
        await this.createForConversation(context);
      },
    });
    this.bus.subscribe('conversation.resolved', (event) => this.onConversationResolved(event));
    this.mergeHooks.register('tickets', (primaryId, duplicateIds) => this.tickets.moveContact(duplicateIds, primaryId));
  }

  /** The pipeline stage: the new conversation's ticket, or null (not new, switched off, or exists). */
  async createForConversation(context: InboundStageContext): Promise<TicketEntity | null> {
    if (!context.conversationCreated) return null;
    const settings = await this.settings.current();
    if (!settings.autoCreateFromConversation) return null;
    const conversation = context.conversation;
    return this.creator.create(
      {
        subject: automaticSubject(context.message, context.contact.name),
        description: context.message.text ? context.message.text.slice(0, MAX_DESCRIPTION_LENGTH) : null,
        status: 'OPEN',
        priority: settings.defaultPriority,
        source: 'CONVERSATION',
        assigneeId: conversation.assigneeId,
        queueId: conversation.queueId,
        contactId: context.contact.id,
        conversationId: conversation.id,
        tags: [],
      },
      { channelType: conversation.channelType, ifAbsent: true },
    );
  }

  /** `resolveWithConversation`: resolves the conversation's automatic ticket; returns what changed. */
  async resolveForConversation(conversationId: string): Promise<TicketEntity[]> {
    return this.tx.run(async () => {
      if (!(await this.settings.current()).resolveWithConversation) return [];
      const resolved = await this.tickets.resolveAutomatic(conversationId);
      for (const ticket of resolved) {
        await this.bus.publish('ticket.updated', ticket.workspaceId, {
          ticket: toTicketResponse(ticket),
          changes: ['status', 'resolvedAt'],
        });
      }
      return resolved;
    });
  }

  /** After the wrap-up commits: resolves the conversation's automatic ticket (when the setting is on). */
  private async onConversationResolved(event: DomainEvent<'conversation.resolved'>): Promise<void> {
    const id = event.data.conversationId;
    await runAsWorkspace(event.workspaceId, () => this.resolveForConversation(id));
  }
}
