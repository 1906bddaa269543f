import { isEmail } from 'class-validator';
import { normalizeTags } from 'src/core/domain/vocabulary';

const PHONE_MIN_DIGITS = 3;
const PHONE_MAX_DIGITS = 20;
const PHONE_CHARACTERS = /^\+?[\d\s().\-/]+$/;

/**
 * The matching form of a phone number: `+` when it was written with one, then its digits
 * (`+44 (20) 7946-0958` → `+442079460958`, `020 7946 0958` → `02079460958`). Null when the text is
 * not a phone number (letters, a `+` elsewhere than first, fewer than 3 or more than 20 digits).
 */
export function normalizePhone(raw: string): string | null {
  const text = raw.trim();
  if (!PHONE_CHARACTERS.test(text)) return null;
  const digits = text.replace(/\D/g, '');
  if (digits.length < PHONE_MIN_DIGITS || digits.length > PHONE_MAX_DIGITS) return null;
  return text.startsWith('+') ? `+${digits}` : digits;
}

/** The digits of a phone: phones are compared by these (`+1 555 0100` and `1-555-0100` match). */
export function phoneDigits(value: string): string {
  return value.replace(/\D/g, '');
}

/** Lower-cased, trimmed email; null when not an email address. */
export function normalizeEmail(raw: string): string | null {
  const email = raw.trim().toLowerCase();
  return email && isEmail(email) ? email : null;
}

/** `a, b; c | d` → `['a', 'b', 'c', 'd']` (CSV tag cells). */
export function splitTags(cell: string): string[] {
  return normalizeTags(cell.split(/[,;|]/));
}

/** Appends the tags of `extra` that `base` lacks; `base` keeps its order. */
export function unionTags(base: readonly string[], extra: readonly string[]): string[] {
  return normalizeTags([...base, ...extra]);
}

/** Trimmed text, or null when blank. */
export function cleanText(value: string | null | undefined): string | null {
  const text = value?.trim() ?? '';
  return text === '' ? null : text;
}
