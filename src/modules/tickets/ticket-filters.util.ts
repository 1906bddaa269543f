import { AppException } from 'src/core/errors/app.exception';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import type { TicketFiltersQuery } from './dto/ticket.dto';
import type { TicketFilters } from './tickets.repository';

/** The validated query as repository filters; `assigneeId=me` is the calling user (an API token has none). */
export function toTicketFilters(ctx: TenantContext, query: TicketFiltersQuery): TicketFilters {
  let assigneeId: string | null | undefined;
  if (query.assigneeId === 'unassigned') assigneeId = null;
  else if (query.assigneeId === 'me') {
    if (!ctx.actor.userId) throw AppException.field('assigneeId', 'me needs a user (an API token has none)');
    assigneeId = ctx.actor.userId;
  } else assigneeId = query.assigneeId;
  if (query.from && query.to && new Date(query.from).getTime() >= new Date(query.to).getTime()) {
    throw AppException.field('from', 'must be before to');
  }
  return {
    statuses: query.status,
    priorities: query.priority,
    search: query.search || undefined,
    assigneeId,
    queueId: query.queueId,
    contactId: query.contactId,
    conversationId: query.conversationId,
    tag: query.tag || undefined,
    source: query.source,
    from: query.from,
    to: query.to,
  };
}
