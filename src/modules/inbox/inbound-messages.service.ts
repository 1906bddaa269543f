import { Injectable } from '@nestjs/common';
import type { DeliveryUpdate, InboundMessage } from 'src/modules/channels';
import { ConversationsRepository } from './conversations.repository';
import type { ConversationResponse, MessageResponse } from './dto/conversation.dto';
import { previewOf, toConversationResponse, toMessageResponse } from './inbox.mapper';
import { MessagesRepository } from './messages.repository';

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
  ) {}

  /** A platform redelivery of a message we stored already. */
  async isRedelivery(channelId: string, externalId: string | null): Promise<boolean> {
    return externalId !== null && (await this.messages.existsByExternalId(channelId, externalId));
  }

  /**
   * Stores the customer's message in the conversation (unique per channel + external id) and moves
   * the conversation's last-message fields; null when the message exists already (nothing changes).
   */
  async appendInbound(
    conversationId: string,
    channelId: string,
    message: InboundMessage,
    contactName: string | null,
  ): Promise<AppendedInbound | null> {
    const stored = await this.messages.insertUnlessDuplicate({
      conversationId,
      channelId,
      direction: 'INBOUND',
      senderType: 'CONTACT',
      senderId: null,
      type: message.type,
      text: message.text,
      attachments: message.attachments,
      buttons: null,
      postbackPayload: message.postbackPayload,
      externalId: message.externalId,
      deliveryStatus: 'RECEIVED',
      metadata: {
        ...(message.sentAt ? { platformSentAt: message.sentAt.toISOString() } : {}),
        ...(message.referral ? { referral: message.referral } : {}),
      },
    });
    if (!stored) return null;
    const conversation = await this.conversations.recordInbound(conversationId, stored.createdAt, previewOf(stored));
    return { conversation: toConversationResponse(conversation, contactName), message: toMessageResponse(stored) };
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
