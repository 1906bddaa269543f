import { Injectable } from '@nestjs/common';
import type { Priority } from 'src/core/domain/vocabulary';
import { TransactionHost } from 'src/core/database/transaction-host';
import type { ChannelType } from 'src/modules/channels';
import { QueuesService, RoutingService } from 'src/modules/queues';
import { ConversationOpenedHooks } from './conversation-opened-hooks';
import type { ConversationEntity } from './conversation.entity';
import { ConversationsRepository } from './conversations.repository';

export interface OpenConversationInput {
  readonly channel: { readonly id: string; readonly type: ChannelType };
  readonly contactId: string;
  /** The contact's id on the channel: where replies go. */
  readonly externalId: string;
  /** Default: the workspace's default queue. */
  readonly queueId?: string;
  readonly priority?: Priority;
  readonly subject?: string | null;
  /** Set when the conversation starts without an inbound message (`POST /conversations`). */
  readonly lastMessageAt?: Date;
}

export interface OpenedResult {
  readonly conversation: ConversationEntity;
  /** False: the contact already had a conversation on this channel that is not RESOLVED (returned locked). */
  readonly created: boolean;
}

/**
 * The one place a conversation is opened (DESIGN §4.3 step 3, §5.1), used by the inbound pipeline
 * and by `POST /conversations` alike. Joins the caller's transaction:
 *
 *   the contact's open conversation on the channel (locked) → else the queue (default: the default
 *   queue) → the agent by the queue's strategy (MANUAL or nobody available → unassigned) → insert →
 *   the "conversation opened" hooks (e.g. SLA due times), before anyone hears of it. The returned
 *   row is the inserted one: read it again (or update it) to see what the hooks wrote.
 */
@Injectable()
export class ConversationOpener {
  constructor(
    private readonly tx: TransactionHost,
    private readonly conversations: ConversationsRepository,
    private readonly queues: QueuesService,
    private readonly routing: RoutingService,
    private readonly hooks: ConversationOpenedHooks,
  ) {}

  openFor(input: OpenConversationInput): Promise<OpenedResult> {
    return this.tx.run(async () => {
      const open = await this.conversations.findOpenForUpdate(input.channel.id, input.contactId);
      if (open) return { conversation: open, created: false };
      const queueId = input.queueId ?? (await this.queues.getDefaultId());
      const assigneeId = await this.routing.pickAgent(queueId);
      const inserted = await this.conversations.create({
        contactId: input.contactId,
        channelId: input.channel.id,
        channelType: input.channel.type,
        contactExternalId: input.externalId,
        status: 'OPEN',
        priority: input.priority ?? 'MEDIUM',
        queueId,
        assigneeId,
        assignedAt: assigneeId ? new Date() : null,
        tags: [],
        ...(input.subject !== undefined ? { subject: input.subject } : {}),
        ...(input.lastMessageAt ? { lastMessageAt: input.lastMessageAt } : {}),
      });
      await this.hooks.run({
        id: inserted.id,
        channelId: inserted.channelId,
        channelType: inserted.channelType,
        contactId: inserted.contactId,
        queueId: inserted.queueId,
        assigneeId: inserted.assigneeId,
        priority: inserted.priority,
        createdAt: inserted.createdAt,
      });
      return { conversation: inserted, created: true };
    });
  }
}
