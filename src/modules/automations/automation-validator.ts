import type { ErrorDetail } from 'src/core/errors/app.exception';
import {
  LIST_OPERATORS,
  MAX_ACTIONS,
  MAX_BUTTON_PAYLOAD,
  MAX_CONDITIONS,
  OPERATORS_BY_TYPE,
  type ParamDefinition,
  VALUELESS_OPERATORS,
  actionDefinition,
  fieldDefinition,
  flowTriggerDefinition,
} from './automation-definitions';
import {
  type AutomationAction,
  type AutomationKind,
  type AutomationTrigger,
  type Condition,
  type ConditionSet,
  type Operator,
  RULE_TRIGGERS,
  type RuleTrigger,
} from './automation.types';

/** A definition as sent (kind, trigger, conditions, actions), before validation. */
export interface DefinitionInput {
  readonly kind: AutomationKind;
  readonly trigger: unknown;
  readonly conditions?: unknown;
  readonly actions: unknown;
}

/** What the workspace must hold for the definition to be valid (checked by the service in one go). */
export interface DefinitionRefs {
  readonly queues: { path: string; id: string }[];
  readonly users: { path: string; id: string }[];
  readonly postbacks: { path: string; payload: string }[];
}

export interface ValidatedDefinition {
  readonly trigger: AutomationTrigger;
  readonly conditions: ConditionSet;
  readonly actions: AutomationAction[];
  /** Button payloads this definition's SEND_BUTTONS steps offer. */
  readonly offeredPayloads: string[];
  readonly refs: DefinitionRefs;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a definition against the registry (automation-definitions.ts). Every problem is reported
 * with its path (`actions[2].params.queueId`, `conditions.all[0].operator`); nothing is thrown here.
 */
export function validateDefinition(input: DefinitionInput): {
  value: ValidatedDefinition | null;
  errors: ErrorDetail[];
} {
  const errors: ErrorDetail[] = [];
  const refs: DefinitionRefs = { queues: [], users: [], postbacks: [] };
  const fail = (field: string, message: string) => errors.push({ field, message });

  // Trigger
  let trigger: AutomationTrigger | null = null;
  let ruleTrigger: RuleTrigger | null = null;
  if (input.kind === 'RULE') {
    if (typeof input.trigger !== 'string' || !(RULE_TRIGGERS as readonly string[]).includes(input.trigger)) {
      fail('trigger', `must be one of ${RULE_TRIGGERS.join(', ')}`);
    } else {
      ruleTrigger = input.trigger as RuleTrigger;
      trigger = ruleTrigger;
    }
  } else {
    const raw = input.trigger;
    const def = isRecord(raw) ? flowTriggerDefinition(raw.type) : null;
    if (!isRecord(raw)) fail('trigger', 'must be an object {type, …} for a FLOW');
    else if (!def) fail('trigger.type', 'must be one of KEYWORD, POSTBACK, AD_REFERRAL');
    else {
      const params = checkParams(raw, def.params, 'trigger', fail, ['type']);
      if (params) {
        trigger = { type: def.type, ...params } as AutomationTrigger;
        if (def.type === 'POSTBACK' && typeof params.payload === 'string') {
          refs.postbacks.push({ path: 'trigger.payload', payload: params.payload });
        }
        if (def.type === 'KEYWORD' && Array.isArray(params.keywords)) {
          (params.keywords as string[]).forEach((k, i) => {
            if (!k.trim()) fail(`trigger.keywords[${i}]`, 'must not be blank');
          });
        }
      }
    }
  }

  // Conditions
  const conditions: ConditionSet = { all: [], any: [] };
  const rawConditions = input.conditions ?? {};
  if (!isRecord(rawConditions)) fail('conditions', 'must be an object {all: [...], any: [...]}');
  else {
    for (const key of Object.keys(rawConditions)) {
      if (key !== 'all' && key !== 'any') fail(`conditions.${key}`, 'is not allowed (all, any)');
    }
    if (input.kind === 'FLOW') {
      const count =
        (Array.isArray(rawConditions.all) ? rawConditions.all.length : 0) +
        (Array.isArray(rawConditions.any) ? rawConditions.any.length : 0);
      if (count > 0) fail('conditions', 'a FLOW has no conditions (its trigger decides)');
    }
    let total = 0;
    for (const group of ['all', 'any'] as const) {
      const list = rawConditions[group] ?? [];
      if (!Array.isArray(list)) {
        fail(`conditions.${group}`, 'must be an array');
        continue;
      }
      total += list.length;
      list.forEach((raw, i) => {
        const condition = checkCondition(raw, `conditions.${group}[${i}]`, ruleTrigger, fail);
        if (condition) conditions[group].push(condition);
      });
    }
    if (total > MAX_CONDITIONS) fail('conditions', `must have at most ${MAX_CONDITIONS} conditions (has ${total})`);
  }

  // Actions / steps
  const actions: AutomationAction[] = [];
  const offeredPayloads: string[] = [];
  const label = input.kind === 'FLOW' ? 'step' : 'action';
  if (!Array.isArray(input.actions)) fail('actions', 'must be an array');
  else {
    if (input.actions.length === 0) fail('actions', `must have at least one ${label}`);
    if (input.actions.length > MAX_ACTIONS) {
      fail('actions', `must have at most ${MAX_ACTIONS} ${label}s (has ${input.actions.length})`);
    }
    input.actions.forEach((raw, i) => {
      const path = `actions[${i}]`;
      if (!isRecord(raw)) return fail(path, 'must be an object {type, params}');
      for (const key of Object.keys(raw))
        if (key !== 'type' && key !== 'params') fail(`${path}.${key}`, 'is not allowed');
      const def = actionDefinition(raw.type);
      if (!def || !def.kinds.includes(input.kind)) {
        return fail(
          `${path}.type`,
          `is not a ${input.kind} ${label}${typeof raw.type === 'string' ? ` (${raw.type})` : ''}`,
        );
      }
      const rawParams = raw.params ?? {};
      if (!isRecord(rawParams)) return fail(`${path}.params`, 'must be an object');
      const params = checkParams(rawParams, def.params, `${path}.params`, fail, []);
      if (!params) return;
      for (const p of def.params) {
        const value = params[p.name];
        if (p.ref === 'queue' && typeof value === 'string')
          refs.queues.push({ path: `${path}.params.${p.name}`, id: value });
        if (p.ref === 'user' && typeof value === 'string')
          refs.users.push({ path: `${path}.params.${p.name}`, id: value });
      }
      if (def.type === 'SEND_BUTTONS' && Array.isArray(params.buttons)) {
        offeredPayloads.push(...(params.buttons as { payload: string }[]).map((b) => b.payload));
      }
      actions.push({ type: def.type, params });
    });
  }

  if (errors.length > 0 || !trigger) return { value: null, errors };
  return { value: { trigger, conditions, actions, offeredPayloads, refs }, errors };
}

function checkCondition(
  raw: unknown,
  path: string,
  trigger: RuleTrigger | null,
  fail: (field: string, message: string) => void,
): Condition | null {
  if (!isRecord(raw)) {
    fail(path, 'must be an object {field, operator, value}');
    return null;
  }
  for (const key of Object.keys(raw)) {
    if (!['field', 'operator', 'value'].includes(key)) fail(`${path}.${key}`, 'is not allowed');
  }
  const def = typeof raw.field === 'string' ? fieldDefinition(raw.field) : null;
  if (!def) {
    fail(`${path}.field`, `is not a known field${typeof raw.field === 'string' ? ` (${raw.field})` : ''}`);
    return null;
  }
  if (trigger && !def.triggers.includes(trigger)) {
    fail(`${path}.field`, `${raw.field as string} is not available on ${trigger}`);
    return null;
  }
  const operators = OPERATORS_BY_TYPE[def.type];
  if (typeof raw.operator !== 'string' || !(operators as readonly string[]).includes(raw.operator)) {
    fail(`${path}.operator`, `must be one of ${operators.join(', ')} for ${def.type} field ${def.field}`);
    return null;
  }
  const operator = raw.operator as Operator;
  const value = raw.value;
  if (VALUELESS_OPERATORS.includes(operator)) {
    if (value !== undefined && value !== null) fail(`${path}.value`, `must be absent for ${operator}`);
    return { field: raw.field as string, operator };
  }
  if (LIST_OPERATORS.includes(operator)) {
    if (!Array.isArray(value) || value.length === 0 || value.length > 100) {
      fail(`${path}.value`, `must be a list of 1–100 values for ${operator}`);
      return null;
    }
    for (let i = 0; i < value.length; i++) {
      if (!scalarOk(def.type, value[i], def.values)) {
        fail(`${path}.value[${i}]`, expected(def.type, def.values));
        return null;
      }
    }
    return { field: raw.field as string, operator, value };
  }
  if (!scalarOk(def.type === 'list' ? 'text' : def.type, value, def.values)) {
    fail(`${path}.value`, expected(def.type === 'list' ? 'text' : def.type, def.values));
    return null;
  }
  if ((operator === 'greater_than' || operator === 'less_than') && def.type === 'any') {
    if (!(typeof value === 'number' || (typeof value === 'string' && !Number.isNaN(Date.parse(value))))) {
      fail(`${path}.value`, 'must be a number or a date for greater_than / less_than');
      return null;
    }
  }
  return { field: raw.field as string, operator, value };
}

function scalarOk(type: string, value: unknown, values?: readonly string[]): boolean {
  switch (type) {
    case 'text':
      return typeof value === 'string' && value.length <= 1000;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'date':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value));
    case 'enum':
      return typeof value === 'string' && (!values || values.includes(value.toUpperCase()));
    case 'id':
      return typeof value === 'string' && UUID.test(value);
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return ['string', 'number', 'boolean'].includes(typeof value);
  }
}

function expected(type: string, values?: readonly string[]): string {
  switch (type) {
    case 'text':
      return 'must be a string (at most 1000 characters)';
    case 'number':
      return 'must be a number';
    case 'date':
      return 'must be an ISO 8601 date';
    case 'enum':
      return `must be one of ${(values ?? []).join(', ')}`;
    case 'id':
      return 'must be a UUID';
    case 'boolean':
      return 'must be true or false';
    default:
      return 'must be a string, number or boolean';
  }
}

/** Checks params against their definitions; returns the clean params, or null when one failed. */
function checkParams(
  raw: Record<string, unknown>,
  defs: readonly ParamDefinition[],
  path: string,
  fail: (field: string, message: string) => void,
  ignore: string[],
): Record<string, unknown> | null {
  let ok = true;
  const out: Record<string, unknown> = {};
  const bad = (field: string, message: string) => {
    ok = false;
    fail(field, message);
  };
  for (const key of Object.keys(raw)) {
    if (!ignore.includes(key) && !defs.some((d) => d.name === key)) bad(`${path}.${key}`, 'is not a known parameter');
  }
  for (const def of defs) {
    const value = raw[def.name];
    const at = `${path}.${def.name}`;
    if (value === undefined || value === null) {
      if (def.required) bad(at, 'is required');
      continue;
    }
    switch (def.type) {
      case 'text':
        if (typeof value !== 'string') bad(at, 'must be a string');
        else if (def.required && !value.trim()) bad(at, 'must not be empty');
        else if (def.maxLength && value.length > def.maxLength) bad(at, `must be at most ${def.maxLength} characters`);
        else out[def.name] = value;
        break;
      case 'url':
        if (typeof value !== 'string' || !/^https?:\/\/\S+$/i.test(value)) bad(at, 'must be an http(s) URL');
        else if (def.maxLength && value.length > def.maxLength) bad(at, `must be at most ${def.maxLength} characters`);
        else out[def.name] = value;
        break;
      case 'uuid':
        if (typeof value !== 'string' || !UUID.test(value)) bad(at, 'must be a UUID');
        else out[def.name] = value.toLowerCase();
        break;
      case 'enum': {
        const upper = typeof value === 'string' ? value.toUpperCase() : null;
        if (!upper || !def.values?.includes(upper)) bad(at, `must be one of ${(def.values ?? []).join(', ')}`);
        else out[def.name] = upper;
        break;
      }
      case 'text[]': {
        if (!Array.isArray(value)) {
          bad(at, 'must be an array of strings');
          break;
        }
        if (def.minItems !== undefined && value.length < def.minItems)
          bad(at, `must have at least ${def.minItems} item(s)`);
        if (def.maxItems !== undefined && value.length > def.maxItems)
          bad(at, `must have at most ${def.maxItems} items`);
        value.forEach((v, i) => {
          if (typeof v !== 'string' || !v.trim()) bad(`${at}[${i}]`, 'must be a non-empty string');
          else if (def.maxLength && v.length > def.maxLength)
            bad(`${at}[${i}]`, `must be at most ${def.maxLength} characters`);
        });
        if (ok) out[def.name] = value.map((v: string) => v.trim());
        break;
      }
      case 'buttons': {
        if (!Array.isArray(value)) {
          bad(at, 'must be an array of {title, payload}');
          break;
        }
        if (value.length < (def.minItems ?? 1)) bad(at, `must have at least ${def.minItems ?? 1} button`);
        if (def.maxItems !== undefined && value.length > def.maxItems) {
          bad(at, `must have at most ${def.maxItems} buttons (the most a platform shows)`);
        }
        const seen = new Set<string>();
        value.forEach((b, i) => {
          if (!isRecord(b)) return bad(`${at}[${i}]`, 'must be an object {title, payload}');
          for (const key of Object.keys(b))
            if (key !== 'title' && key !== 'payload') bad(`${at}[${i}].${key}`, 'is not allowed');
          if (typeof b.title !== 'string' || !b.title.trim()) bad(`${at}[${i}].title`, 'must be a non-empty string');
          else if (def.maxLength && b.title.length > def.maxLength) {
            bad(`${at}[${i}].title`, `must be at most ${def.maxLength} characters (WhatsApp and LINE limit)`);
          }
          if (typeof b.payload !== 'string' || !b.payload.trim())
            bad(`${at}[${i}].payload`, 'must be a non-empty string');
          else if (Buffer.byteLength(b.payload) > MAX_BUTTON_PAYLOAD) {
            bad(`${at}[${i}].payload`, `must be at most ${MAX_BUTTON_PAYLOAD} bytes (Telegram's callback_data limit)`);
          } else if (seen.has(b.payload)) bad(`${at}[${i}].payload`, 'is used by another button of this step');
          else seen.add(b.payload);
        });
        if (ok)
          out[def.name] = (value as { title: string; payload: string }[]).map((b) => ({
            title: b.title,
            payload: b.payload,
          }));
        break;
      }
    }
  }
  return ok ? out : null;
}
