/** class-transformer helpers shared by the inbox DTOs (query strings arrive as strings). */
export const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
export const upper = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? value.trim().toUpperCase() : value;
export const lower = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? value.trim().toLowerCase() : value;
/** `status=open,on_hold` (or repeated `status=`, or a JSON array) → `['OPEN', 'ON_HOLD']`. */
export const upperList = ({ value }: { value: unknown }): unknown => {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : value;
  return Array.isArray(items)
    ? items.map((v: unknown) => (typeof v === 'string' ? v.trim().toUpperCase() : v)).filter((v) => v !== '')
    : items;
};
/** Tags: trimmed, lower-cased, duplicates dropped. */
export const tagList = ({ value }: { value: unknown }): unknown =>
  Array.isArray(value)
    ? [...new Set(value.map((v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : v)))]
    : value;
/** Present (even null) → validate; absent → skip. For fields where null is not a valid value. */
export const isPresent = (_: object, value: unknown): boolean => value !== undefined;
/** Absent or null → skip (null clears the field). */
export const isSet = (_: object, value: unknown): boolean => value !== undefined && value !== null;

export const UUID_OR_KEYWORD = /^(me|unassigned|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export const MAX_TAGS = 20;
export const MAX_TAG_LENGTH = 50;
export const MAX_SUBJECT_LENGTH = 200;
export const MAX_NOTE_LENGTH = 10_000;
export const MAX_SEARCH_LENGTH = 200;
