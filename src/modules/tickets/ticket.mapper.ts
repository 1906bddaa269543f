import type { TicketCommentResponse, TicketResponse } from './dto/ticket.dto';
import type { TicketSettingsResponse } from './dto/ticket-settings.dto';
import type { TicketCommentEntity } from './ticket-comment.entity';
import type { TicketEntity } from './ticket.entity';
import type { TicketSettingsValues } from './tickets.constants';

export function toTicketResponse(t: TicketEntity): TicketResponse {
  return {
    id: t.id,
    key: t.key,
    subject: t.subject,
    description: t.description,
    status: t.status,
    priority: t.priority,
    assigneeId: t.assigneeId,
    queueId: t.queueId,
    contactId: t.contactId,
    conversationId: t.conversationId,
    tags: t.tags,
    dueAt: t.dueAt?.toISOString() ?? null,
    resolvedAt: t.resolvedAt?.toISOString() ?? null,
    source: t.source,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

export function toTicketCommentResponse(c: TicketCommentEntity): TicketCommentResponse {
  return { id: c.id, authorId: c.authorId, body: c.body, internal: c.internal, createdAt: c.createdAt.toISOString() };
}

export function toTicketSettingsResponse(s: TicketSettingsValues): TicketSettingsResponse {
  return {
    autoCreateFromConversation: s.autoCreateFromConversation,
    keyPrefix: s.keyPrefix,
    defaultPriority: s.defaultPriority,
    resolveWithConversation: s.resolveWithConversation,
  };
}
