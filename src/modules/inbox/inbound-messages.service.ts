import { Injectable } from '@nestjs/common';
import type { DeliveryUpdate, InboundMessage } from 'src/modules/channels';
import type { ConversationEntity } from './conversation.entity';
import { ConversationStamps } from './conversation-stamps';
import { ConversationsRepository } from './conversations.repository';
import type { ConversationResponse, MessageResponse } from './dto/conversation.dto';
import { previewOf, toConversationResponse, toMessageResponse } from './inbox.mapper';
import { type InboundMessageValues, MessagesRepository, type StoredInbound } from './messages.repository';

/** A customer message stored in its conversation, as the pipeline stages see both. */
export interface AppendedInbound {
  readonly conversation: ConversationResponse;
  readonly message: MessageResponse;
}

/**
 * What the inbound pipeline writes into conversations and messages (the inbox owns both tables).
 * Every method joins the caller's transaction (the event's, under the sender's lock).
 */
@Injectable()
export class InboundMessagesService {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly messages: MessagesRepository,
    private readonly stamps: ConversationStamps,
  ) {}

  /** A platform redelivery of a message we stored already. */
  async isRedelivery(channelId: string, externalId: string | null): Promise<boolean> {
    return externalId !== null && (await this.messages.existsByExternalId(channelId, externalId));
  }

  /**
   * Stores the customer's message in the conversation (unique per channel + external id) and moves
   * the conversation's last-message fields; null when the message exists already (nothing changes).
   *
   * `conversation` is the row ConversationOpener returned, locked by this transaction. A conversation
   * that existed already is stored and touched in one statement and its response built from that row
   * (nothing else can have changed it under the lock); a new one is re-read by its update, because
   * the "conversation opened" hooks (SLA due times) wrote to it after it was returned.
   */
  async appendInbound(
    conversation: ConversationEntity,
    created: boolean,
    channelId: string,
    message: InboundMessage,
    contactName: string | null,
  ): Promise<AppendedInbound | null> {
    const values = inboundValues(conversation.id, channelId, message);
    const preview = previewOf(values);
    if (!created) {
      const stored = await this.messages.insertInboundAndTouch(values, preview);
      return stored && stampedResponse(conversation, stored, preview, contactName);
    }
    // A conversation this transaction opened: its opened hooks (SLA due times) wrote to the row, so
    // the statement answers the whole row as updated (one statement, not an insert and a re-read).
    const stored = await this.messages.insertInboundAndTouch(values, preview, { conversationRow: true });
    return stored && this.withRow(stored, contactName);
  }

  /**
   * For each (channel, contact): the id of its conversation that is not RESOLVED, read only, keyed
   * `channelId:contactId` — the pipeline reads them once for a group of events, then stores each
   * message with `appendToOpen`.
   */
  async openConversationIds(pairs: readonly { channelId: string; contactId: string }[]): Promise<Map<string, string>> {
    const rows = await this.conversations.findOpenIds(pairs);
    return new Map(rows.map((r) => [`${r.channelId}:${r.contactId}`, r.id]));
  }

  /**
   * `appendInbound` for a conversation read earlier without a lock (`openConversationIds`): one
   * statement locks it, checks that it is still not RESOLVED and stores the message — 'not-open'
   * when it was resolved meanwhile (nothing stored: the caller opens one as usual). Null for a
   * redelivery. The response is built from the conversation's row as locked, so whatever changed it
   * since it was read is seen, with the message's stamp applied; the stamp itself is written at the
   * end of the transaction (ConversationStamps: with the reply's, when the event is answered).
   */
  async appendToOpen(
    conversationId: string,
    channelId: string,
    message: InboundMessage,
    contactName: string | null,
  ): Promise<AppendedInbound | 'not-open' | null> {
    const values = inboundValues(conversationId, channelId, message);
    const stored = await this.messages.insertInboundIfOpen(values);
    if (stored === 'not-open' || stored === null) return stored;
    // The conversation's stamp waits for the end of the transaction (ConversationStamps); the stages
    // see the row with it applied.
    const preview = previewOf(values);
    await this.stamps.inbound({ conversationId, at: stored.message.createdAt, preview });
    return stampedResponse(this.conversations.hydrate(stored.conversationRow!), stored, preview, contactName);
  }

  private withRow(stored: StoredInbound, contactName: string | null): AppendedInbound {
    const updated = this.conversations.hydrate(stored.conversationRow!);
    return { conversation: toConversationResponse(updated, contactName), message: toMessageResponse(stored.message) };
  }

  /** WhatsApp `statuses`: the delivery state of one of our outbound messages; its id, or null when unknown. */
  applyDeliveryReceipt(
    channelId: string,
    externalMessageId: string,
    update: DeliveryUpdate,
    error: string | null,
  ): Promise<string | null> {
    return this.messages.applyDeliveryUpdate(channelId, externalMessageId, update, error);
  }
}

/** The stored message and its conversation as the stages see it: `conversation` with the message's stamp applied. */
function stampedResponse(
  conversation: ConversationEntity,
  stored: StoredInbound,
  preview: string,
  contactName: string | null,
): AppendedInbound {
  const at = stored.message.createdAt;
  const stamped = Object.assign(Object.create(Object.getPrototypeOf(conversation) as object) as ConversationEntity, {
    ...conversation,
    lastMessageAt: at,
    lastMessagePreview: preview,
    lastInboundAt: at,
    updatedAt: stored.conversationUpdatedAt,
  });
  return { conversation: toConversationResponse(stamped, contactName), message: toMessageResponse(stored.message) };
}

function inboundValues(conversationId: string, channelId: string, message: InboundMessage): InboundMessageValues {
  return {
    conversationId,
    channelId,
    type: message.type,
    text: message.text,
    attachments: message.attachments,
    postbackPayload: message.postbackPayload,
    externalId: message.externalId,
    metadata: {
      ...(message.sentAt ? { platformSentAt: message.sentAt.toISOString() } : {}),
      ...(message.referral ? { referral: message.referral } : {}),
    },
  };
}
