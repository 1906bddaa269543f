export const CUSTOM_FIELD_TYPES = ['TEXT', 'NUMBER', 'DATE', 'BOOLEAN', 'SELECT'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];
export type CustomFieldValue = string | number | boolean;
export type CustomFieldValues = Record<string, CustomFieldValue>;

/** snake_case: lower-case letters and digits in words joined by single underscores, starting with a letter. */
export const FIELD_KEY_PATTERN = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
export const MAX_TEXT_VALUE_LENGTH = 10_000;

export interface CustomFieldDefinition {
  readonly key: string;
  readonly type: CustomFieldType;
  readonly options: readonly string[];
  readonly required: boolean;
}

export interface FieldError {
  readonly field: string;
  readonly message: string;
}

export interface CustomFieldCheck {
  /** Keys to set (a value) or remove (null). */
  readonly values: Record<string, CustomFieldValue | null>;
  readonly errors: FieldError[];
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const PLAIN_NUMBER = /^[-+]?(\d+|\d{1,3}(,\d{3})+)(\.\d+)?$/;
const TRUE_WORDS = new Set(['true', 'yes', 'y', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'n', '0']);

function fieldPath(key: string): string {
  return `customFields.${key}`;
}

/** A real calendar date written `YYYY-MM-DD`. */
export function isIsoDate(value: string): boolean {
  const match = ISO_DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

type Checked = { readonly value: CustomFieldValue | null } | { readonly error: string };

/** One JSON value against its definition. Blank strings and null mean "no value". */
export function checkJsonValue(def: CustomFieldDefinition, value: unknown): Checked {
  if (value === null || (typeof value === 'string' && value.trim() === '')) return { value: null };
  switch (def.type) {
    case 'TEXT':
      if (typeof value !== 'string') return { error: 'must be a string' };
      if (value.length > MAX_TEXT_VALUE_LENGTH) return { error: `must be at most ${MAX_TEXT_VALUE_LENGTH} characters` };
      return { value: value.trim() };
    case 'NUMBER':
      return typeof value === 'number' && Number.isFinite(value) ? { value } : { error: 'must be a number' };
    case 'DATE':
      return typeof value === 'string' && isIsoDate(value.trim())
        ? { value: value.trim() }
        : { error: 'must be a date written YYYY-MM-DD' };
    case 'BOOLEAN':
      return typeof value === 'boolean' ? { value } : { error: 'must be true or false' };
    case 'SELECT':
      return typeof value === 'string' && def.options.includes(value.trim())
        ? { value: value.trim() }
        : { error: `must be one of: ${def.options.join(', ')}` };
  }
}

/** One CSV cell (always text) converted to its definition's type. Blank means "no value". */
export function checkCsvValue(def: CustomFieldDefinition, cell: string): Checked {
  const text = cell.trim();
  if (text === '') return { value: null };
  switch (def.type) {
    case 'NUMBER':
      return PLAIN_NUMBER.test(text) ? { value: Number(text.replace(/,/g, '')) } : { error: 'must be a number' };
    case 'BOOLEAN': {
      const word = text.toLowerCase();
      if (TRUE_WORDS.has(word)) return { value: true };
      if (FALSE_WORDS.has(word)) return { value: false };
      return { error: 'must be true or false (yes/no, 1/0)' };
    }
    case 'SELECT': {
      const option = def.options.find((o) => o.toLowerCase() === text.toLowerCase());
      return option !== undefined ? { value: option } : { error: `must be one of: ${def.options.join(', ')}` };
    }
    default:
      return checkJsonValue(def, text);
  }
}

export interface CheckOptions {
  /** Creating a contact: every required field must have a value. */
  readonly requireAll: boolean;
  /** The values are CSV cells (strings) rather than JSON values. */
  readonly csv?: boolean;
}

/**
 * Validates a contact's `customFields` against the workspace's definitions: unknown keys, wrong
 * types, values outside a SELECT's options, and (when creating) missing required fields are errors
 * naming the field. On update, clearing a required field (null) is an error too.
 */
export function checkCustomFields(
  input: Readonly<Record<string, unknown>>,
  definitions: readonly CustomFieldDefinition[],
  options: CheckOptions,
): CustomFieldCheck {
  const byKey = new Map(definitions.map((d) => [d.key, d]));
  const values: Record<string, CustomFieldValue | null> = {};
  const errors: FieldError[] = [];
  for (const [key, raw] of Object.entries(input)) {
    const def = byKey.get(key);
    if (!def) {
      errors.push({ field: fieldPath(key), message: 'is not a defined custom field' });
      continue;
    }
    const checked = options.csv && typeof raw === 'string' ? checkCsvValue(def, raw) : checkJsonValue(def, raw);
    if ('error' in checked) {
      errors.push({ field: fieldPath(key), message: checked.error });
    } else if (checked.value === null && def.required && !options.requireAll) {
      errors.push({ field: fieldPath(key), message: 'is required and cannot be removed' });
    } else {
      values[key] = checked.value;
    }
  }
  if (options.requireAll) {
    for (const def of definitions) {
      const value = values[def.key];
      if (
        def.required &&
        (value === undefined || value === null) &&
        !errors.some((e) => e.field === fieldPath(def.key))
      ) {
        errors.push({ field: fieldPath(def.key), message: 'is required' });
      }
    }
  }
  return { values, errors };
}

/** Applies a checked patch: keys with a value are set, keys with null removed. */
export function applyCustomFields(
  current: Readonly<CustomFieldValues>,
  patch: Readonly<Record<string, CustomFieldValue | null>>,
): CustomFieldValues {
  const result: CustomFieldValues = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = value;
  }
  return result;
}
