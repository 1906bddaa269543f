import type { Priority } from 'src/core/domain/vocabulary';

/** In board order (DESIGN §6). */
export const TICKET_STATUSES = ['OPEN', 'IN_PROGRESS', 'WAITING', 'RESOLVED', 'CLOSED'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export const TICKET_SOURCES = ['CONVERSATION', 'MANUAL', 'API'] as const;
export type TicketSource = (typeof TICKET_SOURCES)[number];

/** Statuses that count as done: not overdue, resolved at `resolvedAt`. */
export const DONE_STATUSES: readonly TicketStatus[] = ['RESOLVED', 'CLOSED'];

/** The automatic ticket's subject, from the first message. */
export const AUTO_SUBJECT_LENGTH = 80;
export const MAX_DESCRIPTION_LENGTH = 20_000;
export const MAX_COMMENT_LENGTH = 10_000;
/** Tickets per board column. */
export const BOARD_COLUMN_LIMIT = 50;
/** Comments returned with a ticket (oldest first). */
export const DETAIL_COMMENTS_LIMIT = 500;

export interface TicketSettingsValues {
  readonly autoCreateFromConversation: boolean;
  readonly keyPrefix: string;
  readonly defaultPriority: Priority;
  readonly resolveWithConversation: boolean;
}

export const DEFAULT_TICKET_SETTINGS: TicketSettingsValues = {
  autoCreateFromConversation: true,
  keyPrefix: 'TCK',
  defaultPriority: 'MEDIUM',
  resolveWithConversation: false,
};
