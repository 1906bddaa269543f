import type { AutomationKind, Operator, RuleTrigger } from './automation.types';
import { FLOW_TRIGGER_TYPES, RULE_TRIGGERS } from './automation.types';

/**
 * THE definition of what an automation may say: triggers, condition fields (with their type and
 * operators), actions and flow steps (with their parameters). The validator and `GET /automations/meta`
 * are both generated from these tables, so they cannot disagree.
 */

export type FieldType = 'text' | 'number' | 'date' | 'enum' | 'id' | 'list' | 'boolean' | 'any';

/** The operators each field type accepts. */
export const OPERATORS_BY_TYPE: Record<FieldType, readonly Operator[]> = {
  text: ['equals', 'not_equals', 'contains', 'not_contains', 'starts_with', 'in', 'not_in', 'is_set', 'is_not_set'],
  number: ['equals', 'not_equals', 'greater_than', 'less_than', 'in', 'not_in', 'is_set', 'is_not_set'],
  date: ['equals', 'not_equals', 'greater_than', 'less_than', 'is_set', 'is_not_set'],
  enum: ['equals', 'not_equals', 'in', 'not_in', 'is_set', 'is_not_set'],
  id: ['equals', 'not_equals', 'in', 'not_in', 'is_set', 'is_not_set'],
  list: ['contains', 'not_contains', 'in', 'not_in', 'is_set', 'is_not_set'],
  boolean: ['equals', 'not_equals', 'is_set', 'is_not_set'],
  any: [
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
  ],
};

/** Operators that take no value. */
export const VALUELESS_OPERATORS: readonly Operator[] = ['is_set', 'is_not_set'];
/** Operators whose value is a list. */
export const LIST_OPERATORS: readonly Operator[] = ['in', 'not_in'];

export const CONVERSATION_STATUSES = ['OPEN', 'ON_HOLD', 'RESOLVED'] as const;
export const TICKET_STATUSES = ['OPEN', 'IN_PROGRESS', 'WAITING', 'RESOLVED', 'CLOSED'] as const;
export const PRIORITY_VALUES = ['LOW', 'MEDIUM', 'HIGH', 'URGENT'] as const;
export const CHANNEL_TYPE_VALUES = ['MESSENGER', 'INSTAGRAM', 'WHATSAPP', 'TELEGRAM', 'LINE', 'CUSTOM'] as const;
export const MESSAGE_TYPE_VALUES = ['TEXT', 'IMAGE', 'FILE', 'POSTBACK'] as const;

const CONVERSATION_TRIGGERS: readonly RuleTrigger[] = RULE_TRIGGERS;
const TICKET_TRIGGERS: readonly RuleTrigger[] = ['ticket.created', 'ticket.updated'];
const MESSAGE_TRIGGERS: readonly RuleTrigger[] = ['message.received'];

export interface FieldDefinition {
  readonly field: string;
  readonly type: FieldType;
  readonly values?: readonly string[];
  /** The RULE triggers whose events carry this field. */
  readonly triggers: readonly RuleTrigger[];
  readonly description: string;
}

function field(
  name: string,
  type: FieldType,
  triggers: readonly RuleTrigger[],
  description: string,
  values?: readonly string[],
): FieldDefinition {
  return { field: name, type, triggers, description, ...(values ? { values } : {}) };
}

export const FIELDS: readonly FieldDefinition[] = [
  field('message.text', 'text', MESSAGE_TRIGGERS, 'Text of the inbound message'),
  field('message.type', 'enum', MESSAGE_TRIGGERS, 'Type of the inbound message', MESSAGE_TYPE_VALUES),
  field('message.postbackPayload', 'text', MESSAGE_TRIGGERS, 'Payload of a button press'),
  field('conversation.id', 'id', CONVERSATION_TRIGGERS, 'The conversation'),
  field('conversation.status', 'enum', CONVERSATION_TRIGGERS, 'Conversation status', CONVERSATION_STATUSES),
  field('conversation.priority', 'enum', CONVERSATION_TRIGGERS, 'Conversation priority', PRIORITY_VALUES),
  field('conversation.channelType', 'enum', CONVERSATION_TRIGGERS, 'Channel of the conversation', CHANNEL_TYPE_VALUES),
  field('conversation.channelId', 'id', CONVERSATION_TRIGGERS, 'Channel connection of the conversation'),
  field('conversation.queueId', 'id', CONVERSATION_TRIGGERS, 'Queue of the conversation'),
  field('conversation.assigneeId', 'id', CONVERSATION_TRIGGERS, 'Assigned agent'),
  field('conversation.tags', 'list', CONVERSATION_TRIGGERS, 'Conversation tags'),
  field('conversation.subject', 'text', CONVERSATION_TRIGGERS, 'Conversation subject'),
  field('conversation.createdAt', 'date', CONVERSATION_TRIGGERS, 'When the conversation was opened'),
  field('conversation.lastMessageAt', 'date', CONVERSATION_TRIGGERS, 'Last message time'),
  field('contact.id', 'id', CONVERSATION_TRIGGERS, 'The contact'),
  field('contact.name', 'text', CONVERSATION_TRIGGERS, 'Contact name'),
  field('contact.email', 'text', CONVERSATION_TRIGGERS, 'Contact email'),
  field('contact.phone', 'text', CONVERSATION_TRIGGERS, 'Contact phone'),
  field('contact.tags', 'list', CONVERSATION_TRIGGERS, 'Contact tags'),
  field('contact.createdAt', 'date', CONVERSATION_TRIGGERS, 'When the contact was created'),
  field('ticket.id', 'id', TICKET_TRIGGERS, 'The ticket'),
  field('ticket.key', 'text', TICKET_TRIGGERS, 'Ticket key, e.g. TCK-12'),
  field('ticket.subject', 'text', TICKET_TRIGGERS, 'Ticket subject'),
  field('ticket.description', 'text', TICKET_TRIGGERS, 'Ticket description'),
  field('ticket.status', 'enum', TICKET_TRIGGERS, 'Ticket status', TICKET_STATUSES),
  field('ticket.priority', 'enum', TICKET_TRIGGERS, 'Ticket priority', PRIORITY_VALUES),
  field('ticket.source', 'enum', TICKET_TRIGGERS, 'Ticket source', ['CONVERSATION', 'MANUAL', 'API']),
  field('ticket.queueId', 'id', TICKET_TRIGGERS, 'Ticket queue'),
  field('ticket.assigneeId', 'id', TICKET_TRIGGERS, 'Ticket assignee'),
  field('ticket.tags', 'list', TICKET_TRIGGERS, 'Ticket tags'),
  field('ticket.dueAt', 'date', TICKET_TRIGGERS, 'Ticket due time'),
  field('ticket.createdAt', 'date', TICKET_TRIGGERS, 'When the ticket was created'),
];

/** `contact.customFields.<key>`: typed by the stored value (numbers and dates compare as such). */
export const CUSTOM_FIELD_PATTERN = /^contact\.customFields\.([A-Za-z0-9_-]{1,64})$/;
export const CUSTOM_FIELD: FieldDefinition = field(
  'contact.customFields.<key>',
  'any',
  CONVERSATION_TRIGGERS,
  'A custom field of the contact; numbers and dates compare as such, text ignores case',
);

export function fieldDefinition(path: string): FieldDefinition | null {
  return FIELDS.find((f) => f.field === path) ?? (CUSTOM_FIELD_PATTERN.test(path) ? CUSTOM_FIELD : null);
}

// ---------------------------------------------------------------------------------------------------
// Parameters, actions, steps

export type ParamType = 'text' | 'uuid' | 'enum' | 'text[]' | 'buttons' | 'url';

export interface ParamDefinition {
  readonly name: string;
  readonly type: ParamType;
  readonly required: boolean;
  readonly values?: readonly string[];
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  /** What the id must name in the workspace. */
  readonly ref?: 'queue' | 'user';
  /** Text parameters that take `{{contact.name}}`-style placeholders. */
  readonly placeholders?: boolean;
  readonly description: string;
}

export interface ActionDefinition {
  readonly type: string;
  readonly kinds: readonly AutomationKind[];
  readonly params: readonly ParamDefinition[];
  readonly description: string;
}

/** Button limits: the most any platform shows (each platform's own format is chosen at send time). */
export const MAX_BUTTONS = 13;
export const MAX_BUTTON_TITLE = 20;
/** Bytes: Telegram's callback_data limit (the smallest of the platforms). */
export const MAX_BUTTON_PAYLOAD = 64;
export const MAX_REPLY_TEXT = 4096;

const text = (name: string, description: string, required = true, maxLength = MAX_REPLY_TEXT): ParamDefinition => ({
  name,
  type: 'text',
  required,
  maxLength,
  placeholders: true,
  description,
});

export const ACTIONS: readonly ActionDefinition[] = [
  {
    type: 'ASSIGN_QUEUE',
    kinds: ['RULE', 'FLOW'],
    params: [{ name: 'queueId', type: 'uuid', required: true, ref: 'queue', description: 'A queue of the workspace' }],
    description: 'Moves the conversation (or the ticket, on ticket triggers) to a queue',
  },
  {
    type: 'ASSIGN_AGENT',
    kinds: ['RULE'],
    params: [{ name: 'userId', type: 'uuid', required: true, ref: 'user', description: 'A member of the workspace' }],
    description: 'Assigns the conversation (or the ticket, on ticket triggers) to a member',
  },
  {
    type: 'SET_PRIORITY',
    kinds: ['RULE'],
    params: [{ name: 'priority', type: 'enum', required: true, values: PRIORITY_VALUES, description: 'New priority' }],
    description: 'Sets the priority of the conversation (or the ticket, on ticket triggers)',
  },
  {
    type: 'ADD_TAGS',
    kinds: ['RULE', 'FLOW'],
    params: [
      {
        name: 'tags',
        type: 'text[]',
        required: true,
        minItems: 1,
        maxItems: 20,
        maxLength: 50,
        description: 'Tags added to those already there',
      },
    ],
    description: 'Adds tags to the conversation (or the ticket, on ticket triggers)',
  },
  {
    type: 'SEND_REPLY',
    kinds: ['RULE'],
    params: [text('text', 'Reply text; {{contact.name}}, {{conversation.id}}, {{ticket.key}} … are replaced')],
    description: "Sends a reply to the customer through the conversation's channel",
  },
  {
    type: 'ADD_NOTE',
    kinds: ['RULE'],
    params: [text('text', 'Internal note text (placeholders allowed)', true, 10_000)],
    description: 'Adds an internal note to the conversation',
  },
  {
    type: 'CREATE_TICKET',
    kinds: ['RULE', 'FLOW'],
    params: [
      text('subject', 'Ticket subject (placeholders allowed); default: from the conversation', false, 200),
      { name: 'priority', type: 'enum', required: false, values: PRIORITY_VALUES, description: 'Ticket priority' },
    ],
    description: 'Creates a ticket linked to the conversation',
  },
  {
    type: 'SET_STATUS',
    kinds: ['RULE'],
    params: [
      {
        name: 'status',
        type: 'enum',
        required: true,
        values: [...new Set([...CONVERSATION_STATUSES, ...TICKET_STATUSES])],
        description: 'Conversation status (OPEN, ON_HOLD, RESOLVED) or, on ticket triggers, ticket status',
      },
    ],
    description: 'Changes the status of the conversation (or the ticket, on ticket triggers)',
  },
  {
    type: 'SEND_TEXT',
    kinds: ['FLOW'],
    params: [text('text', 'Message text (placeholders allowed)')],
    description: 'Sends a text message',
  },
  {
    type: 'SEND_BUTTONS',
    kinds: ['FLOW'],
    params: [
      text('text', 'Text above the buttons (placeholders allowed)', true, 640),
      {
        name: 'buttons',
        type: 'buttons',
        required: true,
        minItems: 1,
        maxItems: MAX_BUTTONS,
        maxLength: MAX_BUTTON_TITLE,
        description:
          '[{title, payload}]: Messenger shows ≤ 3 as a button template and more as quick replies (≤ 13), WhatsApp ≤ 3 as reply buttons and more as a list (≤ 10), Telegram an inline keyboard, LINE a buttons template (≤ 4) or quick replies',
      },
    ],
    description: "Sends text with buttons in the platform's own format",
  },
  {
    type: 'SEND_IMAGE',
    kinds: ['FLOW'],
    params: [
      { name: 'url', type: 'url', required: true, maxLength: 2000, description: 'Public https image URL' },
      text('caption', 'Caption (placeholders allowed)', false, 1000),
    ],
    description: 'Sends an image',
  },
  {
    type: 'HANDOFF_AI',
    kinds: ['FLOW'],
    params: [],
    description: 'The active AI agent answers from the next message on',
  },
  { type: 'HANDOFF_HUMAN', kinds: ['FLOW'], params: [], description: 'The AI agent stays silent on the conversation' },
];

export function actionDefinition(type: unknown): ActionDefinition | null {
  return ACTIONS.find((a) => a.type === type) ?? null;
}

export interface FlowTriggerDefinition {
  readonly type: string;
  readonly params: readonly ParamDefinition[];
  readonly description: string;
}

export const FLOW_TRIGGERS: readonly FlowTriggerDefinition[] = [
  {
    type: 'KEYWORD',
    params: [
      {
        name: 'keywords',
        type: 'text[]',
        required: true,
        minItems: 1,
        maxItems: 50,
        maxLength: 100,
        description: 'Case- and accent-insensitive',
      },
      {
        name: 'match',
        type: 'enum',
        required: true,
        values: ['EXACT', 'CONTAINS'],
        description: 'EXACT: the whole message; CONTAINS: whole words anywhere in it',
      },
    ],
    description: 'A text message matching one of the keywords',
  },
  {
    type: 'POSTBACK',
    params: [
      {
        name: 'payload',
        type: 'text',
        required: true,
        maxLength: MAX_BUTTON_PAYLOAD,
        description: 'The payload of a button a flow of the workspace sends',
      },
    ],
    description:
      'A button press (Messenger postback / quick reply, WhatsApp reply, Telegram callback, LINE postback, Custom postbackPayload)',
  },
  {
    type: 'AD_REFERRAL',
    params: [
      { name: 'adIds', type: 'text[]', required: true, maxItems: 100, maxLength: 100, description: 'Empty = any ad' },
    ],
    description: 'A message that came from an ad (Messenger / Instagram referral ad_id, WhatsApp referral source_id)',
  },
];

export function flowTriggerDefinition(type: unknown): FlowTriggerDefinition | null {
  return FLOW_TRIGGERS.find((t) => t.type === type) ?? null;
}

export const MAX_CONDITIONS = 50;
export const MAX_ACTIONS = 50;

const RULE_TRIGGER_DESCRIPTIONS: Record<RuleTrigger, string> = {
  'conversation.created': 'A new conversation (inbound or POST /conversations)',
  'message.received': 'An inbound message was stored',
  'conversation.resolved': 'A conversation was wrapped up',
  'ticket.created': 'A ticket was created',
  'ticket.updated': 'A ticket changed',
};

/** `GET /automations/meta`, generated from the tables above. */
export function automationsMeta() {
  const describeParam = (p: ParamDefinition) => ({
    name: p.name,
    type: p.type,
    required: p.required,
    ...(p.values ? { values: p.values } : {}),
    ...(p.maxLength !== undefined ? { maxLength: p.maxLength } : {}),
    ...(p.minItems !== undefined ? { minItems: p.minItems } : {}),
    ...(p.maxItems !== undefined ? { maxItems: p.maxItems } : {}),
    ...(p.ref ? { ref: p.ref } : {}),
    ...(p.placeholders ? { placeholders: true } : {}),
    description: p.description,
  });
  return {
    kinds: ['RULE', 'FLOW'],
    triggers: {
      RULE: RULE_TRIGGERS.map((name) => ({ name, description: RULE_TRIGGER_DESCRIPTIONS[name] })),
      FLOW: FLOW_TRIGGER_TYPES.map((type) => {
        const def = flowTriggerDefinition(type) as FlowTriggerDefinition;
        return { type, params: def.params.map(describeParam), description: def.description };
      }),
    },
    fields: [...FIELDS, CUSTOM_FIELD].map((f) => ({
      field: f.field,
      type: f.type,
      operators: OPERATORS_BY_TYPE[f.type],
      ...(f.values ? { values: f.values } : {}),
      triggers: f.triggers,
      description: f.description,
    })),
    operators: OPERATORS_BY_TYPE.any,
    actions: ACTIONS.filter((a) => a.kinds.includes('RULE')).map((a) => ({
      type: a.type,
      params: a.params.map(describeParam),
      description: a.description,
    })),
    steps: ACTIONS.filter((a) => a.kinds.includes('FLOW')).map((a) => ({
      type: a.type,
      params: a.params.map(describeParam),
      description: a.description,
    })),
    placeholders: PLACEHOLDERS,
    limits: { conditions: MAX_CONDITIONS, actions: MAX_ACTIONS, buttons: MAX_BUTTONS, buttonTitle: MAX_BUTTON_TITLE },
  };
}

/** Placeholders a text parameter may use; anything else renders empty. */
export const PLACEHOLDERS = [
  '{{contact.name}}',
  '{{contact.email}}',
  '{{contact.phone}}',
  '{{contact.customFields.<key>}}',
  '{{conversation.id}}',
  '{{conversation.subject}}',
  '{{conversation.priority}}',
  '{{message.text}}',
  '{{ticket.key}}',
  '{{ticket.subject}}',
];
