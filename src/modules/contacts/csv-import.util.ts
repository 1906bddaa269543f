import { isURL } from 'class-validator';
import { normalizeHeader, parseJsonObject } from 'src/core/csv/csv-format';
import { MAX_CONTACT_TAG_LENGTH, MAX_CONTACT_TAGS } from 'src/core/domain/vocabulary';
import { normalizeEmail, normalizePhone, splitTags, unionTags } from './contact-values.util';
import { MAX_NAME_LENGTH } from './contacts.constants';
import {
  type CustomFieldDefinition,
  type CustomFieldValues,
  type FieldError,
  checkCustomFields,
} from './custom-fields.util';

export const STANDARD_TARGETS = ['name', 'email', 'phone', 'company', 'tags', 'avatarUrl'] as const;
export type StandardTarget = (typeof STANDARD_TARGETS)[number];
/** Where a column goes: a contact field, or `customFields.<key>`. */
export type ImportTarget = StandardTarget | `customFields.${string}`;

/** Header spellings recognised per field, compared after `normalizeHeader`. */
const HEADER_SYNONYMS: Record<StandardTarget, readonly string[]> = {
  name: ['name', 'fullname', 'contactname', 'contact', 'customer', 'customername', 'displayname', 'nombre', 'nom'],
  email: ['email', 'emailaddress', 'mail', 'emails', 'correo'],
  phone: [
    'phone',
    'phonenumber',
    'mobile',
    'mobilephone',
    'mobilenumber',
    'telephone',
    'tel',
    'cell',
    'cellphone',
    'whatsapp',
  ],
  company: ['company', 'companyname', 'organization', 'organisation', 'org', 'account', 'business'],
  tags: ['tags', 'tag', 'labels', 'label'],
  avatarUrl: ['avatar', 'avatarurl', 'photo', 'photourl', 'picture', 'image', 'imageurl'],
};

function customTarget(key: string): ImportTarget {
  return `customFields.${key}`;
}

/** The field a header names: a standard field by its usual spellings, else a custom field by key or label. */
export function guessTarget(
  header: string,
  fields: readonly (CustomFieldDefinition & { readonly label: string })[],
): ImportTarget | null {
  const normalized = normalizeHeader(header);
  if (!normalized) return null;
  for (const target of STANDARD_TARGETS) if (HEADER_SYNONYMS[target].includes(normalized)) return target;
  const field = fields.find((f) => normalizeHeader(f.key) === normalized || normalizeHeader(f.label) === normalized);
  return field ? customTarget(field.key) : null;
}

/** A target written in a `mapping`: a standard field, `customFields.<key>` or a bare custom key. */
export function parseTarget(value: string, fields: readonly CustomFieldDefinition[]): ImportTarget | null {
  const standard = STANDARD_TARGETS.find((t) => t === value);
  if (standard) return standard;
  const key = value.startsWith('customFields.') ? value.slice('customFields.'.length) : value;
  return fields.some((f) => f.key === key) ? customTarget(key) : null;
}

export type ImportMappingOverride = Readonly<Record<string, string | null>>;

/** The `mapping` form field: a JSON object `{"<header>": "<target>" | null}`. */
export function parseMappingJson(raw: string): { mapping: ImportMappingOverride } | { error: string } {
  const parsed = parseJsonObject(raw);
  if (!parsed) return { error: 'must be a JSON object' };
  const mapping: Record<string, string | null> = {};
  for (const [header, target] of Object.entries(parsed)) {
    if (target !== null && typeof target !== 'string')
      return { error: `value of "${header}" must be a string or null` };
    mapping[header] = target;
  }
  return { mapping };
}

export interface ColumnMapping {
  /** Target per column index; null = ignored. */
  readonly columns: (ImportTarget | null)[];
  /** What the caller sees: header → target. */
  readonly mapping: Record<string, ImportTarget | null>;
  readonly errors: FieldError[];
}

/**
 * Maps columns by their headers, then applies the caller's overrides. Unknown headers or targets in
 * the override, and two columns sharing one target, are errors. A repeated header maps once (its
 * first column); later copies are ignored.
 */
export function buildColumnMapping(
  headers: readonly string[],
  fields: readonly (CustomFieldDefinition & { readonly label: string })[],
  override: ImportMappingOverride | null,
): ColumnMapping {
  const errors: FieldError[] = [];
  const trimmed = headers.map((h) => h.trim());
  const first = new Map<string, number>();
  trimmed.forEach((h, i) => {
    if (h && !first.has(h)) first.set(h, i);
  });
  const columns: (ImportTarget | null)[] = trimmed.map((h, i) =>
    h && first.get(h) === i ? guessTarget(h, fields) : null,
  );
  for (const [header, target] of Object.entries(override ?? {})) {
    const index = first.get(header.trim());
    if (index === undefined) {
      errors.push({ field: `mapping.${header}`, message: 'is not a column of the file' });
      continue;
    }
    if (target === null || target === '') {
      columns[index] = null;
      continue;
    }
    const parsed = parseTarget(target, fields);
    if (!parsed) {
      errors.push({
        field: `mapping.${header}`,
        message: `must be one of: ${STANDARD_TARGETS.join(', ')}, a custom field key, or null`,
      });
      continue;
    }
    // An explicit choice wins over a guess that claimed the same target.
    columns.forEach((t, i) => {
      if (t === parsed && i !== index && !(trimmed[i]! in (override ?? {}))) columns[i] = null;
    });
    columns[index] = parsed;
  }
  const seen = new Map<ImportTarget, number>();
  columns.forEach((target, i) => {
    if (!target) return;
    const other = seen.get(target);
    if (other !== undefined) {
      errors.push({ field: `mapping.${trimmed[i]}`, message: `maps to ${target} like column "${trimmed[other]}"` });
    } else {
      seen.set(target, i);
    }
  });
  const mapping: Record<string, ImportTarget | null> = {};
  trimmed.forEach((h, i) => {
    if (h && first.get(h) === i) mapping[h] = columns[i] ?? null;
  });
  return { columns, mapping, errors };
}

/** A CSV row's contact values, ready to be matched and written. */
export interface ImportRowValues {
  readonly name: string | null;
  readonly email: string | null;
  readonly phone: string | null;
  readonly phoneNormalized: string | null;
  readonly avatarUrl: string | null;
  /** Company name, matched case-insensitively (created when missing). */
  readonly company: string | null;
  readonly tags: string[];
  readonly customFields: CustomFieldValues;
}

export type ParsedImportRow =
  | { readonly kind: 'values'; readonly values: ImportRowValues }
  | { readonly kind: 'skip' }
  | { readonly kind: 'error'; readonly message: string };

function quoted(cell: string): string {
  return JSON.stringify(cell.length > 80 ? `${cell.slice(0, 77)}...` : cell);
}

/**
 * One data row through the column mapping: blank cells are "no value"; any invalid cell makes the
 * whole row an error (every problem listed); a row with no name, email or phone is skipped.
 */
export function parseImportRow(
  cells: readonly string[],
  columns: readonly (ImportTarget | null)[],
  fields: readonly CustomFieldDefinition[],
): ParsedImportRow {
  const problems: string[] = [];
  let name: string | null = null;
  let email: string | null = null;
  let phone: string | null = null;
  let phoneNormalized: string | null = null;
  let avatarUrl: string | null = null;
  let company: string | null = null;
  let tags: string[] = [];
  const custom: Record<string, string> = {};
  columns.forEach((target, i) => {
    const cell = (cells[i] ?? '').trim();
    if (!target || !cell) return;
    switch (target) {
      case 'name':
        if (cell.length > MAX_NAME_LENGTH) problems.push(`name is longer than ${MAX_NAME_LENGTH} characters`);
        else name = cell;
        break;
      case 'email':
        email = normalizeEmail(cell);
        if (!email) problems.push(`email ${quoted(cell)} is not a valid email address`);
        break;
      case 'phone':
        phoneNormalized = normalizePhone(cell);
        if (phoneNormalized) phone = cell;
        else problems.push(`phone ${quoted(cell)} is not a valid phone number`);
        break;
      case 'company':
        if (cell.length > MAX_NAME_LENGTH) problems.push(`company is longer than ${MAX_NAME_LENGTH} characters`);
        else company = cell;
        break;
      case 'tags':
        tags = splitTags(cell);
        if (tags.length > MAX_CONTACT_TAGS) problems.push(`tags: at most ${MAX_CONTACT_TAGS}`);
        if (tags.some((t) => t.length > MAX_CONTACT_TAG_LENGTH))
          problems.push(`tags: each at most ${MAX_CONTACT_TAG_LENGTH} characters`);
        break;
      case 'avatarUrl':
        if (isURL(cell, { protocols: ['http', 'https'], require_protocol: true }) && cell.length <= 2000)
          avatarUrl = cell;
        else problems.push(`avatarUrl ${quoted(cell)} is not an http(s) URL`);
        break;
      default:
        custom[target.slice('customFields.'.length)] = cell;
    }
  });
  const checked = checkCustomFields(custom, fields, { requireAll: false, csv: true });
  for (const e of checked.errors) problems.push(`${e.field} ${e.message}`);
  if (problems.length > 0) return { kind: 'error', message: problems.join('; ') };
  if (!name && !email && !phone) return { kind: 'skip' };
  const customFields: CustomFieldValues = {};
  for (const [key, value] of Object.entries(checked.values)) if (value !== null) customFields[key] = value;
  return { kind: 'values', values: { name, email, phone, phoneNormalized, avatarUrl, company, tags, customFields } };
}

/** Required custom fields a new contact would lack. */
export function missingRequiredFields(values: CustomFieldValues, fields: readonly CustomFieldDefinition[]): string[] {
  return fields.filter((f) => f.required && values[f.key] === undefined).map((f) => f.key);
}

/** Two rows of one file that land on the same contact: the later row's values win, tags add up. */
export function combineImportRows(first: ImportRowValues, later: ImportRowValues): ImportRowValues {
  const phoneFromLater = later.phone !== null;
  return {
    name: later.name ?? first.name,
    email: later.email ?? first.email,
    phone: phoneFromLater ? later.phone : first.phone,
    phoneNormalized: phoneFromLater ? later.phoneNormalized : first.phoneNormalized,
    avatarUrl: later.avatarUrl ?? first.avatarUrl,
    company: later.company ?? first.company,
    tags: unionTags(first.tags, later.tags),
    customFields: { ...first.customFields, ...later.customFields },
  };
}
