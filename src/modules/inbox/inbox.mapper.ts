import type { ConversationNoteEntity } from './conversation-note.entity';
import type { ConversationEntity } from './conversation.entity';
import type { ConversationNoteResponse } from './dto/conversation-actions.dto';
import type { ConversationResponse, MessageResponse } from './dto/conversation.dto';
import type { MessageEntity } from './message.entity';

export function toConversationResponse(c: ConversationEntity, contactName: string | null): ConversationResponse {
  return {
    id: c.id,
    contactId: c.contactId,
    contact: { id: c.contactId, name: contactName },
    channelId: c.channelId,
    channelType: c.channelType,
    status: c.status,
    priority: c.priority,
    queueId: c.queueId,
    assigneeId: c.assigneeId,
    tags: c.tags,
    subject: c.subject,
    lastMessageAt: c.lastMessageAt.toISOString(),
    lastMessagePreview: c.lastMessagePreview,
    firstResponseAt: c.firstResponseAt?.toISOString() ?? null,
    firstResponseDueAt: c.firstResponseDueAt?.toISOString() ?? null,
    resolutionDueAt: c.resolutionDueAt?.toISOString() ?? null,
    resolvedAt: c.resolvedAt?.toISOString() ?? null,
    onHoldReason: c.onHoldReason,
    wrapUp: c.wrapUp,
    suggestedReply: c.suggestedReply,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

export function toMessageResponse(m: MessageEntity): MessageResponse {
  return {
    id: m.id,
    conversationId: m.conversationId,
    direction: m.direction,
    senderType: m.senderType,
    senderId: m.senderId,
    type: m.type,
    text: m.text,
    attachments: m.attachments,
    buttons: m.buttons ?? [],
    postbackPayload: m.postbackPayload,
    externalId: m.externalId,
    deliveryStatus: m.deliveryStatus,
    deliveryError: m.deliveryError,
    sentAt: m.sentAt?.toISOString() ?? null,
    createdAt: m.createdAt.toISOString(),
  };
}

/** The conversation list's one-line preview of a message. */
export function previewOf(m: Pick<MessageEntity, 'text' | 'type'>): string {
  const text = m.text?.replace(/\s+/g, ' ').trim();
  return (text || `[${m.type.toLowerCase()}]`).slice(0, 200);
}

export function toNoteResponse(n: ConversationNoteEntity): ConversationNoteResponse {
  return { id: n.id, authorId: n.authorId, text: n.text, createdAt: n.createdAt.toISOString() };
}
