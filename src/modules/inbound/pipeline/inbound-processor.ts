import { Injectable } from '@nestjs/common';
import { EventBus } from 'src/core/events/event-bus';
import {
  ChannelPlatforms,
  type ContactProfile,
  type NormalizedInbound,
  type OpenedConnection,
} from 'src/modules/channels';
import { ContactsService } from 'src/modules/contacts';
import {
  ConversationOpener,
  type ConversationResponse,
  InboundMessagesService,
  type MessageResponse,
} from 'src/modules/inbox';
import type { InboundEventEntity as InboundEvent, InboundEventOutcome } from '../events/inbound-event.entity';
import { InboundPipeline } from './inbound-pipeline';
import { type InboundStageContext, PUBLISH_BEFORE_ORDER } from './inbound-stage';

type InboundMessageEvent = Extract<NormalizedInbound, { kind: 'message' }>;

export interface ProcessedEvent {
  readonly outcome: InboundEventOutcome;
  readonly messageId: string | null;
}

interface ResolvedContact {
  readonly id: string;
  readonly name: string | null;
  readonly created: boolean;
}

/**
 * What one inbound event does, stage by stage, in SPEC §1's order (DESIGN §4.3 step 3–5):
 *
 *   normalise → resolve the contact → the open conversation or a new one (ConversationOpener:
 *   default queue → agent by strategy → insert → "conversation opened" hooks such as SLA)
 *   → store the message (unique per channel + external id; the inbox's InboundMessagesService)
 *   → stages < 100 → publish conversation.created / message.received → stages ≥ 100
 *     (automatic ticket, automations, developer webhooks, then flow / AI agent / suggested reply).
 *
 * Runs inside the event's transaction under the sender's lock (InboundEventRunner), so one
 * contact's messages are handled one at a time, in arrival order. A redelivered message stops at the
 * store step and changes nothing.
 */
@Injectable()
export class InboundProcessor {
  constructor(
    private readonly platforms: ChannelPlatforms,
    private readonly contacts: ContactsService,
    private readonly opener: ConversationOpener,
    private readonly inbox: InboundMessagesService,
    private readonly bus: EventBus,
    private readonly pipeline: InboundPipeline,
  ) {}

  async process(
    event: InboundEvent,
    connection: OpenedConnection,
    profile: ContactProfile | null,
  ): Promise<ProcessedEvent> {
    const normalized = this.platforms.normalize(connection, event.payload, event.receivedAt);
    if (normalized.kind === 'ignored') return { outcome: 'IGNORED', messageId: null };
    if (normalized.kind === 'delivery') return this.applyDeliveryReceipt(connection, normalized);
    if (await this.inbox.isRedelivery(connection.id, normalized.message.externalId)) {
      return { outcome: 'DUPLICATE', messageId: null };
    }

    const contact = await this.resolveContact(connection, normalized, profile);
    const opened = await this.opener.openFor({
      channel: connection,
      contactId: contact.id,
      externalId: normalized.sender.externalId,
    });
    const stored = await this.inbox.appendInbound(
      opened.conversation,
      opened.created,
      connection.id,
      normalized.message,
      contact.name,
    );
    if (!stored) return { outcome: 'DUPLICATE', messageId: null };
    await this.platforms.rememberReplyContext(connection, normalized);

    const context: InboundStageContext = {
      workspaceId: connection.workspaceId,
      eventId: event.id,
      channel: { id: connection.id, type: connection.type },
      contact,
      conversation: stored.conversation,
      conversationCreated: opened.created,
      message: stored.message,
      referral: normalized.message.referral,
    };
    await this.runStages(context, (order) => order < PUBLISH_BEFORE_ORDER);
    await this.publishEvents(context);
    await this.runStages(context, (order) => order >= PUBLISH_BEFORE_ORDER);
    return { outcome: 'MESSAGE_STORED', messageId: stored.message.id };
  }

  /** WhatsApp `statuses`: the delivery state of one of our outbound messages. */
  private async applyDeliveryReceipt(
    connection: OpenedConnection,
    receipt: Extract<NormalizedInbound, { kind: 'delivery' }>,
  ): Promise<ProcessedEvent> {
    const messageId = await this.inbox.applyDeliveryReceipt(
      connection.id,
      receipt.externalMessageId,
      receipt.update,
      receipt.error,
    );
    return { outcome: messageId ? 'DELIVERY_UPDATED' : 'IGNORED', messageId };
  }

  /** The contact holding this channel identity, or a new one named from the platform profile. */
  private async resolveContact(
    connection: OpenedConnection,
    event: InboundMessageEvent,
    fetched: ContactProfile | null,
  ): Promise<ResolvedContact> {
    const profile = { ...fetched, ...definedOnly(event.sender.profile) };
    const { contact, created } = await this.contacts.resolveByIdentity(
      { channelType: connection.type, channelId: connection.id, externalId: event.sender.externalId },
      profile,
    );
    return { id: contact.id, name: contact.name, created };
  }

  /**
   * `conversation.created` (new conversations only), then `message.received`: written to the outbox
   * in the event's transaction; listeners run after it commits.
   */
  private async publishEvents(context: InboundStageContext): Promise<void> {
    const conversation: ConversationResponse = context.conversation;
    const message: MessageResponse = context.message;
    if (context.conversationCreated) {
      await this.bus.publish('conversation.created', context.workspaceId, { conversation, contact: context.contact });
    }
    await this.bus.publish('message.received', context.workspaceId, {
      message,
      conversation,
      contact: context.contact,
    });
  }

  /** Registered stages in order; in the `reply` group, the first 'handled' ends the group. */
  private async runStages(context: InboundStageContext, select: (order: number) => boolean): Promise<void> {
    let replied = false;
    for (const stage of this.pipeline.list()) {
      if (!select(stage.order)) continue;
      if (stage.group === 'reply' && replied) continue;
      const result = await stage.run(context);
      if (stage.group === 'reply' && result === 'handled') replied = true;
    }
  }
}

function definedOnly(profile: ContactProfile): ContactProfile {
  return Object.fromEntries(Object.entries(profile).filter(([, v]) => v !== null && v !== undefined));
}
