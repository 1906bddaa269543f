import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { type TenantContext, getTenantContext } from 'src/core/tenancy/tenant-context';
import { ConversationStamps } from './conversation-stamps';
import { ConversationsRepository } from './conversations.repository';
import { CONVERSATION_MESSAGES_LIMIT, ConversationsService } from './conversations.service';
import type { MessageResponse, SendMessageDto } from './dto/conversation.dto';
import { previewOf, toMessageResponse } from './inbox.mapper';
import type { MessageButton, MessageType, SenderType } from './message.entity';
import { type MessageText, MessagesRepository } from './messages.repository';
import { OutboundDeliveryService } from './outbound/outbound-delivery.service';

/** A reply in our terms: text, an image (text is its caption), or text with buttons. */
export interface OutboundReply {
  readonly text?: string | null;
  readonly imageUrl?: string | null;
  readonly buttons?: readonly MessageButton[];
}

/** A conversation the caller holds in its transaction (the inbound pipeline's): no re-read. */
export interface HeldConversation {
  readonly id: string;
  readonly channelId: string;
}

/** A conversation to reply in: by id, or as the caller holds it. */
export type ReplyTo = string | HeldConversation;

export interface ReplySender {
  readonly type: Exclude<SenderType, 'CONTACT'>;
  readonly id: string | null;
}

/**
 * Outbound messages (SPEC §1 Outbound, DESIGN §4.4): every reply — agent, AI, automation, flow — is
 * stored OUTBOUND and PENDING first, the conversation's first reply stamps `firstResponseAt`, and a
 * delivery job sends it after the transaction commits.
 */
@Injectable()
export class MessagesService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly conversations: ConversationsRepository,
    private readonly access: ConversationsService,
    private readonly messages: MessagesRepository,
    private readonly delivery: OutboundDeliveryService,
    private readonly stamps: ConversationStamps,
  ) {}

  /** `POST /conversations/:id/messages`: an agent's (or API token's) reply. */
  async send(ctx: TenantContext, conversationId: string, dto: SendMessageDto): Promise<MessageResponse> {
    const conversation = await this.access.getVisible(ctx, conversationId);
    if (!dto.text && !dto.attachments?.length) throw AppException.field('text', 'or attachments is required');
    if (dto.buttons?.length && !dto.text) throw AppException.field('text', 'is required with buttons');
    if (dto.buttons?.length && dto.attachments?.length) {
      throw AppException.field('buttons', 'cannot be sent with attachments');
    }
    return this.sendReply(
      conversation.id,
      { text: dto.text ?? null, imageUrl: dto.attachments?.[0]?.url ?? null, buttons: dto.buttons ?? [] },
      { type: 'AGENT', id: ctx.actor.userId },
    );
  }

  /**
   * For the AI agents: direction, type and text of the conversation's latest messages (the window its
   * detail shows), oldest first. One statement; the caller has the conversation already.
   */
  async latestTexts(conversationId: string): Promise<MessageText[]> {
    return (await this.messages.findLatestTexts(conversationId, CONVERSATION_MESSAGES_LIMIT)).reverse();
  }

  /**
   * For other modules (AI agent, automations, flows): stores a reply and queues its delivery.
   * Joins the caller's transaction; the delivery is queued after it commits. The conversation by id,
   * or as the caller already holds it in this transaction (the inbound pipeline's: no re-read).
   */
  async sendReply(to: ReplyTo, reply: OutboundReply, sender: ReplySender): Promise<MessageResponse> {
    return this.tx.run(async () => {
      const conversation = typeof to === 'string' ? await this.conversations.getById(to) : to;
      const [sent] = await this.sendReplies([{ to: conversation, reply, sender }]);
      return sent!;
    });
  }

  /**
   * `sendReply` for several conversations the caller holds, one reply each, stored (with the
   * conversations' stamps) by ONE statement: a pipeline group's AI answers (issue 16 item 3). Answers
   * the stored replies in the order given.
   */
  sendReplies(
    list: readonly { to: HeldConversation; reply: OutboundReply; sender: ReplySender }[],
  ): Promise<MessageResponse[]> {
    return this.tx.run(async () => {
      const values = list.map(({ to, reply, sender }) => {
        const buttons = [...(reply.buttons ?? [])];
        const type: MessageType = buttons.length ? 'BUTTONS' : reply.imageUrl ? 'IMAGE' : 'TEXT';
        const value = {
          conversationId: to.id,
          channelId: to.channelId,
          senderType: sender.type,
          senderId: sender.id,
          type,
          text: reply.text ?? null,
          attachments: reply.imageUrl ? [{ type: 'image', url: reply.imageUrl }] : [],
          buttons: buttons.length ? buttons : null,
        };
        return { ...value, preview: previewOf(value) };
      });
      // A customer message of these conversations whose stamp waits (ConversationStamps): written by
      // the replies' statement, one row version per conversation instead of two.
      const inbound = this.stamps.take(values.map((v) => v.conversationId));
      const messages = await this.messages.insertOutboundAndStamp(
        values.map((v) => ({ ...v, inboundAt: inbound.get(v.conversationId)?.at ?? null })),
      );
      const workspaceId = getTenantContext().workspaceId;
      // Stored together, queued together: one delivery job for all (issue 16 item 3).
      await this.tx.afterCommit(() => this.delivery.enqueueAll(workspaceId, messages));
      return messages.map(toMessageResponse);
    });
  }
}
