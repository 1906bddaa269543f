import { describe, expect, it } from '@jest/globals';
import {
  type CustomFieldDefinition,
  FIELD_KEY_PATTERN,
  applyCustomFields,
  checkCsvValue,
  checkCustomFields,
  isIsoDate,
} from './custom-fields.util';

const defs: CustomFieldDefinition[] = [
  { key: 'plan', type: 'SELECT', options: ['free', 'pro'], required: true },
  { key: 'seats', type: 'NUMBER', options: [], required: false },
  { key: 'renewal', type: 'DATE', options: [], required: false },
  { key: 'active', type: 'BOOLEAN', options: [], required: false },
  { key: 'notes', type: 'TEXT', options: [], required: false },
];

describe('custom field validation', () => {
  it('accepts well-typed values', () => {
    const result = checkCustomFields(
      { plan: 'pro', seats: 3.5, renewal: '2027-02-28', active: false, notes: ' hi ' },
      defs,
      { requireAll: true },
    );
    expect(result.errors).toEqual([]);
    expect(result.values).toEqual({ plan: 'pro', seats: 3.5, renewal: '2027-02-28', active: false, notes: 'hi' });
  });

  it('names the field for unknown keys, wrong types, values outside options and missing required ones', () => {
    const result = checkCustomFields(
      { shoe_size: 42, seats: '3', renewal: '2027-02-30', active: 'yes', notes: 5 },
      defs,
      { requireAll: true },
    );
    expect(result.errors).toEqual([
      { field: 'customFields.shoe_size', message: 'is not a defined custom field' },
      { field: 'customFields.seats', message: 'must be a number' },
      { field: 'customFields.renewal', message: 'must be a date written YYYY-MM-DD' },
      { field: 'customFields.active', message: 'must be true or false' },
      { field: 'customFields.notes', message: 'must be a string' },
      { field: 'customFields.plan', message: 'is required' },
    ]);
    expect(checkCustomFields({ plan: 'enterprise' }, defs, { requireAll: true }).errors).toEqual([
      { field: 'customFields.plan', message: 'must be one of: free, pro' },
    ]);
  });

  it('on update, does not require absent fields but refuses clearing a required one', () => {
    expect(checkCustomFields({ seats: null }, defs, { requireAll: false })).toEqual({
      values: { seats: null },
      errors: [],
    });
    expect(checkCustomFields({ plan: null }, defs, { requireAll: false }).errors).toEqual([
      { field: 'customFields.plan', message: 'is required and cannot be removed' },
    ]);
  });

  it('converts CSV cells to the field type', () => {
    const [plan, seats, renewal, active, notes] = defs;
    expect(checkCsvValue(plan!, 'PRO')).toEqual({ value: 'pro' });
    expect(checkCsvValue(seats!, '1,250.5')).toEqual({ value: 1250.5 });
    expect(checkCsvValue(seats!, '12abc')).toEqual({ error: 'must be a number' });
    expect(checkCsvValue(renewal!, '2027-01-31')).toEqual({ value: '2027-01-31' });
    expect(checkCsvValue(renewal!, '31/01/2027')).toHaveProperty('error');
    expect(checkCsvValue(active!, 'Yes')).toEqual({ value: true });
    expect(checkCsvValue(active!, '0')).toEqual({ value: false });
    expect(checkCsvValue(active!, 'maybe')).toHaveProperty('error');
    expect(checkCsvValue(notes!, '  ')).toEqual({ value: null });
    expect(checkCustomFields({ seats: 'x', plan: 'free' }, defs, { requireAll: true, csv: true }).errors).toEqual([
      { field: 'customFields.seats', message: 'must be a number' },
    ]);
  });

  it('checks calendar dates and snake_case keys', () => {
    expect(isIsoDate('2024-02-29')).toBe(true);
    expect(isIsoDate('2023-02-29')).toBe(false);
    expect(isIsoDate('2023-2-1')).toBe(false);
    for (const ok of ['plan', 'lifetime_value', 'tier2', 'a_1']) expect(FIELD_KEY_PATTERN.test(ok)).toBe(true);
    for (const bad of ['Plan', 'lifetime-value', '_x', 'x_', 'a__b', '2x', 'camelCase'])
      expect(FIELD_KEY_PATTERN.test(bad)).toBe(false);
  });

  it('applies a patch: values set, nulls removed', () => {
    expect(applyCustomFields({ a: 1, b: 'x' }, { a: null, c: true })).toEqual({ b: 'x', c: true });
  });
});
