import { AUTO_SUBJECT_LENGTH, DONE_STATUSES, type TicketStatus } from './tickets.constants';

/**
 * Ticket status transitions. Any status may move to any other, except that CLOSED is final: the only
 * way out is a reopen to OPEN. Staying in the same status is always allowed (no change).
 * Returns why a transition is refused, or null when it is allowed.
 */
export function transitionError(from: TicketStatus, to: TicketStatus): string | null {
  if (from === to) return null;
  if (from === 'CLOSED' && to !== 'OPEN')
    return `A CLOSED ticket can only be reopened (status OPEN), not moved to ${to}`;
  return null;
}

export function isDone(status: TicketStatus): boolean {
  return DONE_STATUSES.includes(status);
}

/**
 * `resolvedAt` after a status change: stamped when the ticket becomes RESOLVED or CLOSED (kept when it
 * already was one of them), cleared when it goes back to OPEN, IN_PROGRESS or WAITING.
 */
export function resolvedAtAfter(to: TicketStatus, current: Date | null, now: Date): Date | null {
  if (!isDone(to)) return null;
  return current ?? now;
}

/** Collapses whitespace; cuts to `max` characters with an ellipsis. */
export function truncateText(text: string, max: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  return `${clean.slice(0, max - 1).trimEnd()}…`;
}

const KIND_LABEL: Record<string, string> = {
  IMAGE: 'Image',
  FILE: 'File',
  POSTBACK: 'Button reply',
  BUTTONS: 'Message',
  TEXT: 'Message',
};

/**
 * The automatic ticket's subject: the first message's text (whitespace collapsed, at most 80
 * characters), or — a message without text — what it is and who sent it ("Image from Ada Lovelace").
 */
export function automaticSubject(message: { text: string | null; type: string }, contactName: string | null): string {
  const text = message.text ? truncateText(message.text, AUTO_SUBJECT_LENGTH) : '';
  if (text) return text;
  const kind = KIND_LABEL[message.type] ?? 'Message';
  return truncateText(`${kind} from ${contactName?.trim() || 'a customer'}`, AUTO_SUBJECT_LENGTH);
}
