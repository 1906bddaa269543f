import { Injectable } from '@nestjs/common';
import { EventBus } from 'src/core/events/event-bus';
import {
  ChannelPlatforms,
  type ContactProfile,
  type NormalizedInbound,
  type OpenedConnection,
} from 'src/modules/channels';
import { ContactsService, contactIdentityKey } from 'src/modules/contacts';
import {
  type AppendedInbound,
  ConversationOpener,
  type ConversationResponse,
  InboundMessagesService,
  type MessageResponse,
} from 'src/modules/inbox';
import type { InboundEventEntity as InboundEvent, InboundEventOutcome } from '../events/inbound-event.entity';
import { InboundPipeline } from './inbound-pipeline';
import { type InboundStageContext, PUBLISH_BEFORE_ORDER } from './inbound-stage';
import { KnownSenders } from './known-senders';

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
 * store step and changes nothing. In a group of events (one transaction), the contact and the open
 * conversation of the senders the workspace knows are read once for the group (`lookUpSenders`,
 * KnownSenders) instead of once per message.
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

  /**
   * For a group of events about to run in one transaction (their senders locked): what their senders
   * already have — two read-only statements for the whole group (none when no sender is known).
   */
  async lookUpSenders(
    events: readonly { readonly event: InboundEvent; readonly connection: OpenedConnection }[],
  ): Promise<KnownSenders> {
    const identities = events
      .filter(({ event }) => event.senderKey !== null)
      .map(({ event, connection }) => ({
        channelType: connection.type,
        channelId: connection.id,
        externalId: event.senderKey!,
      }));
    const contacts = await this.contacts.findByIdentities(identities);
    const pairs = new Map<string, { channelId: string; contactId: string }>();
    for (const identity of identities) {
      const contact = contacts.get(contactIdentityKey(identity));
      if (contact)
        pairs.set(`${identity.channelId}:${contact.id}`, { channelId: identity.channelId, contactId: contact.id });
    }
    const conversations =
      pairs.size > 0 ? await this.inbox.openConversationIds([...pairs.values()]) : new Map<string, string>();
    return new KnownSenders(contacts, conversations);
  }

  /** `senders`: the group's look-up (InboundEventRunner); without it the contact and conversation are read here. */
  async process(
    event: InboundEvent,
    connection: OpenedConnection,
    profile: ContactProfile | null,
    senders?: KnownSenders,
  ): Promise<ProcessedEvent> {
    const normalized = this.platforms.normalize(connection, event.payload, event.receivedAt);
    if (normalized.kind === 'ignored') return { outcome: 'IGNORED', messageId: null };
    if (normalized.kind === 'delivery') return this.applyDeliveryReceipt(connection, normalized);
    if (await this.inbox.isRedelivery(connection.id, normalized.message.externalId)) {
      return { outcome: 'DUPLICATE', messageId: null };
    }

    const contact = await this.resolveContact(connection, normalized, profile, senders);
    const placed = await this.store(connection, normalized, contact, senders);
    if (!placed) return { outcome: 'DUPLICATE', messageId: null };
    const { stored, created } = placed;
    await this.platforms.rememberReplyContext(connection, normalized);

    const context: InboundStageContext = {
      workspaceId: connection.workspaceId,
      eventId: event.id,
      channel: { id: connection.id, type: connection.type },
      contact,
      conversation: stored.conversation,
      conversationCreated: created,
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

  /** The contact holding this channel identity (the group's look-up first), or a new one named from the platform profile. */
  private async resolveContact(
    connection: OpenedConnection,
    event: InboundMessageEvent,
    fetched: ContactProfile | null,
    senders: KnownSenders | undefined,
  ): Promise<ResolvedContact> {
    const known = senders?.takeContact({
      channelType: connection.type,
      channelId: connection.id,
      externalId: event.sender.externalId,
    });
    if (known) return { id: known.id, name: known.name, created: false };
    const profile = { ...fetched, ...definedOnly(event.sender.profile) };
    const { contact, created } = await this.contacts.resolveByIdentity(
      { channelType: connection.type, channelId: connection.id, externalId: event.sender.externalId },
      profile,
    );
    return { id: contact.id, name: contact.name, created };
  }

  /**
   * Stores the message in the contact's conversation that is not RESOLVED — the one the group's
   * look-up found, if still so (one statement), else the one the opener finds or opens — and returns
   * it with whether the conversation is new; null for a redelivery.
   */
  private async store(
    connection: OpenedConnection,
    event: InboundMessageEvent,
    contact: ResolvedContact,
    senders: KnownSenders | undefined,
  ): Promise<{ stored: AppendedInbound; created: boolean } | null> {
    const knownId = senders?.takeOpenConversation(connection.id, contact.id);
    if (knownId) {
      const stored = await this.inbox.appendToOpen(knownId, connection.id, event.message, contact.name);
      if (stored !== 'not-open') return stored && { stored, created: false };
    }
    const opened = await this.opener.openFor({
      channel: connection,
      contactId: contact.id,
      externalId: event.sender.externalId,
    });
    const stored = await this.inbox.appendInbound(
      opened.conversation,
      opened.created,
      connection.id,
      event.message,
      contact.name,
    );
    return stored && { stored, created: opened.created };
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
