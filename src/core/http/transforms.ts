/**
 * class-transformer helpers shared by every DTO (`@Transform(trim)`), and class-validator
 * conditions (`@ValidateIf(isPresent)`). Query strings arrive as text: convert explicitly.
 */
import { normalizeTag } from 'src/core/domain/vocabulary';

type Input = { value: unknown };

export const trim = ({ value }: Input): unknown => (typeof value === 'string' ? value.trim() : value);

/** Trimmed and lower-cased (emails, tags, `me`/`unassigned`). */
export const lower = ({ value }: Input): unknown => (typeof value === 'string' ? value.trim().toLowerCase() : value);

/** Trimmed and upper-cased (enum values are accepted case-insensitively, DESIGN §2). */
export const upper = ({ value }: Input): unknown => (typeof value === 'string' ? value.trim().toUpperCase() : value);

/** `status=open,on_hold` (or repeated `status=`, or a JSON array) → `['OPEN', 'ON_HOLD']`. */
export const upperList = ({ value }: Input): unknown => {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : value;
  return Array.isArray(items)
    ? items.map((v: unknown) => (typeof v === 'string' ? v.trim().toUpperCase() : v)).filter((v) => v !== '')
    : items;
};

/** Tags: trimmed, lower-cased, duplicates dropped. */
export const tagList = ({ value }: Input): unknown =>
  Array.isArray(value) ? [...new Set(value.map((v: unknown) => (typeof v === 'string' ? normalizeTag(v) : v)))] : value;

/** Query and form booleans arrive as text. */
export const toBoolean = ({ value }: Input): unknown => {
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return value;
};

/** Present (even null) → validate; absent → skip. For fields where null is not a valid value. */
export const isPresent = (_: object, value: unknown): boolean => value !== undefined;

/** Absent or null → skip (null clears the field). */
export const isSet = (_: object, value: unknown): boolean => value !== undefined && value !== null;

/** An assignee filter: a user id, `me` or `unassigned`. */
export const ASSIGNEE_FILTER = /^(me|unassigned|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
