/** The shapes of DESIGN §8 / §14 that automations store and exchange. */
export const AUTOMATION_KINDS = ['RULE', 'FLOW'] as const;
export type AutomationKind = (typeof AUTOMATION_KINDS)[number];

export const RULE_TRIGGERS = [
  'conversation.created',
  'message.received',
  'conversation.resolved',
  'ticket.created',
  'ticket.updated',
] as const;
export type RuleTrigger = (typeof RULE_TRIGGERS)[number];

export const FLOW_TRIGGER_TYPES = ['KEYWORD', 'POSTBACK', 'AD_REFERRAL'] as const;
export type FlowTriggerType = (typeof FLOW_TRIGGER_TYPES)[number];

export type FlowTrigger =
  | { readonly type: 'KEYWORD'; readonly keywords: string[]; readonly match: 'EXACT' | 'CONTAINS' }
  | { readonly type: 'POSTBACK'; readonly payload: string }
  | { readonly type: 'AD_REFERRAL'; readonly adIds: string[] };

export type AutomationTrigger = RuleTrigger | FlowTrigger;

export const OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'starts_with',
  'in',
  'not_in',
  'is_set',
  'is_not_set',
  'greater_than',
  'less_than',
] as const;
export type Operator = (typeof OPERATORS)[number];

export interface Condition {
  readonly field: string;
  readonly operator: Operator;
  readonly value?: unknown;
}

export interface ConditionSet {
  readonly all: Condition[];
  readonly any: Condition[];
}

export interface AutomationAction {
  readonly type: string;
  readonly params: Record<string, unknown>;
}

export const RUN_STATUSES = ['SUCCESS', 'FAILED', 'SKIPPED'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export interface RunActionResult {
  readonly type: string;
  readonly status: 'SUCCESS' | 'FAILED';
  readonly error: string | null;
}

/** An automation as the engines see it (cached per workspace). */
export interface ActiveAutomation {
  readonly id: string;
  readonly name: string;
  readonly kind: AutomationKind;
  readonly trigger: AutomationTrigger;
  readonly conditions: ConditionSet;
  readonly actions: AutomationAction[];
  readonly order: number;
}
