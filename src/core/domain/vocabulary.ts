/**
 * The shared vocabulary: values DESIGN names once and several modules use (conversations, tickets,
 * SLA policies, contacts). Each has its one home here; modules import it, never copy it. Channel types
 * are not here: they belong to the channels module (`CHANNEL_TYPES`, one adapter per type).
 */

/** Priorities of conversations and tickets, lowest first (DESIGN §5.1, §6); SLA conditions name them. */
export const PRIORITIES = ['LOW', 'MEDIUM', 'HIGH', 'URGENT'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** Tags of a conversation or a ticket. */
export const MAX_TAGS = 20;
export const MAX_TAG_LENGTH = 50;
/**
 * Tags of a contact: deliberately roomier than a conversation's, since they also come in bulk from
 * CSV imports and CRM exports.
 */
export const MAX_CONTACT_TAGS = 100;
export const MAX_CONTACT_TAG_LENGTH = 64;

/** Subject of a conversation or a ticket. */
export const MAX_SUBJECT_LENGTH = 200;
/** Internal note on a conversation or a contact. */
export const MAX_NOTE_LENGTH = 10_000;

/** One tag's stored form: trimmed and lower-cased (so `VIP` and `vip` are one tag). */
export function normalizeTag(raw: string): string {
  return raw.trim().toLowerCase();
}

/** Tags as stored: each normalised, empties and repeats dropped, first-seen order kept. */
export function normalizeTags(tags: readonly string[]): string[] {
  const result = new Set<string>();
  for (const raw of tags) {
    const tag = normalizeTag(raw);
    if (tag) result.add(tag);
  }
  return [...result];
}
