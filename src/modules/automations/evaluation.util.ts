import { fieldDefinition } from './automation-definitions';
import type { Condition, ConditionSet, FlowTrigger } from './automation.types';

/**
 * Pure evaluation: the values an event offers (`EvaluationSubject`), conditions with the eleven
 * operators (typed: numbers and dates compare as such; text ignores case), placeholders, and the
 * flow triggers' matching. No I/O: `/automations/:id/test` and the engines share it.
 */
export interface EvaluationSubject {
  readonly message?: Record<string, unknown> | null;
  readonly conversation?: Record<string, unknown> | null;
  readonly contact?: Record<string, unknown> | null;
  readonly ticket?: Record<string, unknown> | null;
}

export interface ConditionOutcome {
  readonly field: string;
  readonly operator: string;
  readonly value: unknown;
  readonly actual: unknown;
  readonly passed: boolean;
}

/** The value at a dotted path (`contact.customFields.plan`); undefined when absent. */
export function valueAt(subject: EvaluationSubject, path: string): unknown {
  let current: unknown = subject;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

export function evaluateConditions(
  set: ConditionSet,
  subject: EvaluationSubject,
): { matched: boolean; outcomes: ConditionOutcome[] } {
  const outcomes: ConditionOutcome[] = [];
  let allPassed = true;
  for (const condition of set.all) {
    const outcome = evaluateCondition(condition, subject);
    outcomes.push(outcome);
    if (!outcome.passed) allPassed = false;
  }
  let anyPassed = set.any.length === 0;
  for (const condition of set.any) {
    const outcome = evaluateCondition(condition, subject);
    outcomes.push(outcome);
    if (outcome.passed) anyPassed = true;
  }
  return { matched: allPassed && anyPassed, outcomes };
}

/** A condition set compiled once (the rule engine keeps one per cached rule): true when it matches. */
export type CompiledConditions = (subject: EvaluationSubject) => boolean;

/**
 * Compiles a condition set for repeated evaluation: the field's path split and its type looked up
 * once, the condition's value folded / made comparable once, and no object built per evaluation.
 * The same answer as `evaluateConditions(set, subject).matched`, stopping at the first failure.
 */
export function compileConditions(set: ConditionSet): CompiledConditions {
  const all = set.all.map(compileCondition);
  const any = set.any.map(compileCondition);
  return (subject) => {
    for (const test of all) if (!test(subject)) return false;
    if (any.length === 0) return true;
    for (const test of any) if (test(subject)) return true;
    return false;
  };
}

function compileCondition(condition: Condition): CompiledConditions {
  const parts = condition.field.split('.');
  const type = fieldDefinition(condition.field)?.type ?? 'any';
  const { operator, value: expected } = condition;
  const at = (subject: EvaluationSubject): unknown => {
    let current: unknown = subject;
    for (const part of parts) {
      if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
      current = (current as Record<string, unknown>)[part];
    }
    return current;
  };
  const general = (actual: unknown) => applyOperator(operator, actual, expected, type);
  // Lists (tags) and `any`-typed fields (custom fields: the type depends on the stored value) take
  // the general path; the rest compare against a value prepared here.
  const when =
    (fast: (actual: unknown) => boolean): CompiledConditions =>
    (subject) => {
      const actual = at(subject);
      return Array.isArray(actual) ? general(actual) : fast(actual);
    };
  switch (operator) {
    case 'contains':
    case 'not_contains':
    case 'starts_with': {
      const needle = fold(expected);
      if (operator === 'contains') return when((a) => isSet(a) && fold(a).includes(needle));
      if (operator === 'not_contains') return when((a) => !isSet(a) || !fold(a).includes(needle));
      return when((a) => isSet(a) && fold(a).startsWith(needle));
    }
    case 'equals':
    case 'not_equals': {
      if (type === 'any') break;
      const b = comparable(expected, type);
      const equals = (a: unknown) => {
        const x = comparable(a, type);
        return x !== null && b !== null && x === b;
      };
      return operator === 'equals' ? when(equals) : when((a) => !equals(a));
    }
    case 'in':
    case 'not_in': {
      if (type === 'any' || !Array.isArray(expected)) break;
      const values = new Set(expected.map((e) => comparable(e, type)).filter((e) => e !== null));
      const has = (a: unknown) => {
        const x = comparable(a, type);
        return x !== null && values.has(x);
      };
      return operator === 'in' ? when(has) : when((a) => !has(a));
    }
    default:
      break;
  }
  return (subject) => general(at(subject));
}

export function evaluateCondition(condition: Condition, subject: EvaluationSubject): ConditionOutcome {
  const actual = valueAt(subject, condition.field);
  const type = fieldDefinition(condition.field)?.type ?? 'any';
  const passed = applyOperator(condition.operator, actual, condition.value, type);
  return {
    field: condition.field,
    operator: condition.operator,
    value: condition.value ?? null,
    actual: actual ?? null,
    passed,
  };
}

const isSet = (v: unknown): boolean =>
  v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '') && !(Array.isArray(v) && v.length === 0);

/** Folded texts remembered (50 rules reading one message fold its text once, not 50 times). */
const FOLDED_MAX = 2_000;
const folded = new Map<string, string>();

/** Text is compared case-insensitively (and accent-insensitively for contains / starts_with). */
function fold(value: unknown): string {
  const text = String(value);
  const known = folded.get(text);
  if (known !== undefined) return known;
  const result = text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  if (folded.size >= FOLDED_MAX) folded.clear();
  if (text.length <= 1_000) folded.set(text, result);
  return result;
}

/** Numbers compare as numbers, dates as dates, everything else as folded text. */
function comparable(value: unknown, type: string): number | string | null {
  if (value === undefined || value === null) return null;
  if (type === 'number' || typeof value === 'number') {
    const n = typeof value === 'number' ? value : Number(value);
    return Number.isFinite(n) ? n : null;
  }
  if (type === 'date' || value instanceof Date) {
    const t = value instanceof Date ? value.getTime() : Date.parse(String(value));
    return Number.isNaN(t) ? null : t;
  }
  return fold(value);
}

/** For `any` (custom fields): the type the stored value and the condition's value share. */
function sharedType(actual: unknown, expected: unknown, type: string): string {
  if (type !== 'any') return type;
  const numeric = (v: unknown) =>
    typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)));
  if (numeric(actual) && numeric(expected)) return 'number';
  const dateLike = (v: unknown) =>
    typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v));
  if (dateLike(actual) && dateLike(expected)) return 'date';
  return 'text';
}

function equal(actual: unknown, expected: unknown, type: string): boolean {
  const t = sharedType(actual, expected, type);
  const a = comparable(actual, t);
  const b = comparable(expected, t);
  return a !== null && b !== null && a === b;
}

export function applyOperator(operator: string, actual: unknown, expected: unknown, type: string): boolean {
  if (operator === 'is_set') return isSet(actual);
  if (operator === 'is_not_set') return !isSet(actual);
  if (Array.isArray(actual)) return applyToList(operator, actual, expected);
  switch (operator) {
    case 'equals':
      return equal(actual, expected, type);
    case 'not_equals':
      return !equal(actual, expected, type);
    case 'contains':
      return isSet(actual) && fold(actual).includes(fold(expected));
    case 'not_contains':
      return !isSet(actual) || !fold(actual).includes(fold(expected));
    case 'starts_with':
      return isSet(actual) && fold(actual).startsWith(fold(expected));
    case 'in':
      return Array.isArray(expected) && expected.some((e) => equal(actual, e, type));
    case 'not_in':
      return Array.isArray(expected) && !expected.some((e) => equal(actual, e, type));
    case 'greater_than':
    case 'less_than': {
      const t = sharedType(actual, expected, type);
      if (t !== 'number' && t !== 'date') return false;
      const a = comparable(actual, t);
      const b = comparable(expected, t);
      if (typeof a !== 'number' || typeof b !== 'number') return false;
      return operator === 'greater_than' ? a > b : a < b;
    }
    default:
      return false;
  }
}

/** Lists (tags): contains = has the value; in = has any of the values. Case-insensitive. */
function applyToList(operator: string, actual: unknown[], expected: unknown): boolean {
  const items = actual.map(fold);
  const has = (v: unknown) => items.includes(fold(v));
  switch (operator) {
    case 'contains':
    case 'equals':
      return has(expected);
    case 'not_contains':
    case 'not_equals':
      return !has(expected);
    case 'in':
      return Array.isArray(expected) && expected.some(has);
    case 'not_in':
      return Array.isArray(expected) && !expected.some(has);
    default:
      return false;
  }
}

/** `{{contact.name}}` → the subject's value; unknown or empty placeholders render as ''. Never throws. */
export function renderPlaceholders(template: string, subject: EvaluationSubject): string {
  return template.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_match, path: string) => {
    const value = valueAt(subject, path);
    if (value === undefined || value === null) return '';
    if (Array.isArray(value)) return value.join(', ');
    if (typeof value === 'object') return '';
    return String(value);
  });
}

/** Words of a text, case- and accent-folded (letters and digits of any script). */
export function words(text: string): string[] {
  return fold(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** Does an inbound message match a flow trigger? */
export function flowTriggerMatches(
  trigger: FlowTrigger,
  message: { text: string | null; postbackPayload: string | null },
  referral: { adId: string | null } | null,
): boolean {
  switch (trigger.type) {
    case 'POSTBACK':
      return message.postbackPayload !== null && message.postbackPayload === trigger.payload;
    case 'AD_REFERRAL':
      return (
        referral !== null &&
        (trigger.adIds.length === 0 || (referral.adId !== null && trigger.adIds.includes(referral.adId)))
      );
    case 'KEYWORD': {
      if (!message.text || message.postbackPayload) return false;
      const text = words(message.text);
      if (text.length === 0) return false;
      return trigger.keywords.some((keyword) => {
        const k = words(keyword);
        if (k.length === 0) return false;
        if (trigger.match === 'EXACT') return k.length === text.length && k.every((w, i) => w === text[i]);
        for (let i = 0; i + k.length <= text.length; i++) {
          if (k.every((w, j) => w === text[i + j])) return true;
        }
        return false;
      });
    }
    default:
      return false;
  }
}
