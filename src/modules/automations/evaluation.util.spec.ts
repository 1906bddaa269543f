import { describe, expect, it } from '@jest/globals';
import type { Condition } from './automation.types';
import {
  applyOperator,
  compileConditions,
  evaluateConditions,
  flowTriggerMatches,
  renderPlaceholders,
} from './evaluation.util';

describe('flow trigger matching', () => {
  const keyword = (keywords: string[], match: 'EXACT' | 'CONTAINS') => ({ type: 'KEYWORD' as const, keywords, match });
  const text = (t: string) => ({ text: t, postbackPayload: null });

  it('EXACT: the whole message, ignoring case, accents and punctuation', () => {
    expect(flowTriggerMatches(keyword(['menu'], 'EXACT'), text('Menú!'), null)).toBe(true);
    expect(flowTriggerMatches(keyword(['menu'], 'EXACT'), text('the menu'), null)).toBe(false);
    expect(flowTriggerMatches(keyword(['opening hours'], 'EXACT'), text('  OPENING   hours? '), null)).toBe(true);
  });

  it('CONTAINS: whole words only, consecutive for several words', () => {
    expect(flowTriggerMatches(keyword(['price'], 'CONTAINS'), text('What is the PRICE?'), null)).toBe(true);
    expect(flowTriggerMatches(keyword(['price'], 'CONTAINS'), text('priceless'), null)).toBe(false);
    expect(flowTriggerMatches(keyword(['más info'], 'CONTAINS'), text('quiero mas info ya'), null)).toBe(true);
    expect(flowTriggerMatches(keyword(['more info'], 'CONTAINS'), text('info more'), null)).toBe(false);
  });

  it('a button press never matches a keyword; POSTBACK is the exact payload; AD_REFERRAL any or listed ads', () => {
    expect(flowTriggerMatches(keyword(['menu'], 'EXACT'), { text: 'Menu', postbackPayload: 'MENU' }, null)).toBe(false);
    expect(
      flowTriggerMatches({ type: 'POSTBACK', payload: 'HOURS' }, { text: null, postbackPayload: 'HOURS' }, null),
    ).toBe(true);
    expect(
      flowTriggerMatches({ type: 'POSTBACK', payload: 'HOURS' }, { text: null, postbackPayload: 'hours' }, null),
    ).toBe(false);
    expect(flowTriggerMatches({ type: 'AD_REFERRAL', adIds: [] }, text('hi'), { adId: null })).toBe(true);
    expect(flowTriggerMatches({ type: 'AD_REFERRAL', adIds: ['1'] }, text('hi'), { adId: '2' })).toBe(false);
    expect(flowTriggerMatches({ type: 'AD_REFERRAL', adIds: [] }, text('hi'), null)).toBe(false);
  });
});

describe('operators', () => {
  it('compare numbers and dates as such', () => {
    expect(applyOperator('greater_than', '10', 9, 'any')).toBe(true);
    expect(applyOperator('less_than', 2, '10', 'number')).toBe(true);
    expect(applyOperator('greater_than', '2026-11-02', '2026-10-30', 'date')).toBe(true);
    expect(applyOperator('greater_than', 'abc', 1, 'any')).toBe(false);
  });
  it('lists: contains / in are membership, case-insensitive', () => {
    expect(applyOperator('contains', ['VIP'], 'vip', 'list')).toBe(true);
    expect(applyOperator('in', ['a', 'b'], ['B', 'z'], 'list')).toBe(true);
    expect(applyOperator('not_in', ['a'], ['b'], 'list')).toBe(true);
  });
});

describe('placeholders', () => {
  it('renders known values and leaves unknown ones empty, never throwing', () => {
    const subject = { contact: { name: 'Ada', customFields: { plan: 'gold' } }, conversation: { tags: ['a', 'b'] } };
    expect(renderPlaceholders('Hi {{contact.name}} ({{ contact.customFields.plan }})', subject)).toBe('Hi Ada (gold)');
    expect(renderPlaceholders('{{ticket.key}}|{{contact}}|{{conversation.tags}}|{{x.y.z}}', subject)).toBe('||a, b|');
  });
});

describe('compiled conditions', () => {
  // Every operator on fields of every type (text, enum, list, date, number / any custom field),
  // against subjects with values present, absent, of another case or accent, and lists: the compiled
  // form (the rule engine's) gives the same answer as the interpreted one (the test endpoint's).
  const operators = [
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
  ];
  const fields: [string, unknown[]][] = [
    ['message.text', ['Refund please', 'refund', 'RÉFUND', '', ['refund']]],
    ['conversation.priority', ['HIGH', 'high', 'URGENT', ['HIGH', 'LOW']]],
    ['conversation.tags', ['vip', ['VIP'], ['a', 'b']]],
    ['conversation.createdAt', ['2026-11-02', '2026-10-30T00:00:00Z']],
    ['contact.customFields.plan', ['gold', 10, '9', '2026-11-02', ['gold']]],
  ];
  const subjects = [
    {},
    {
      message: { text: 'I want a Réfund now' },
      conversation: { priority: 'HIGH', tags: ['VIP', 'x'], createdAt: '2026-11-01' },
    },
    { message: { text: null }, conversation: { priority: 'low', tags: [], createdAt: null } },
    { contact: { customFields: { plan: 'Gold' } } },
    { contact: { customFields: { plan: 12 } } },
    { contact: { customFields: { plan: '2026-12-01' } } },
    { contact: { customFields: { plan: ['gold'] } } },
  ];
  it('agree with the interpreted evaluation for every operator, type and subject', () => {
    let compared = 0;
    const mismatches: unknown[] = [];
    for (const [field, values] of fields) {
      for (const operator of operators) {
        for (const value of values) {
          const condition = { field, operator, value } as Condition;
          for (const set of [
            { all: [condition], any: [] },
            { all: [], any: [condition, { ...condition, operator: 'is_set' } as Condition] },
          ]) {
            const compiled = compileConditions(set);
            for (const subject of subjects) {
              const expected = evaluateConditions(set, subject).matched;
              if (compiled(subject) !== expected) mismatches.push({ field, operator, value, subject, expected });
              compared++;
            }
          }
        }
      }
    }
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThan(1000);
  });
});
