import { describe, expect, it } from '@jest/globals';
import { normalizeTags } from 'src/core/domain/vocabulary';
import { normalizeEmail, normalizePhone, phoneDigits, splitTags, unionTags } from './contact-values.util';

describe('contact value helpers', () => {
  it('normalises phones to + and digits, keeping the plus only when written first', () => {
    expect(normalizePhone('+44 (20) 7946-0958')).toBe('+442079460958');
    expect(normalizePhone(' 020 7946 0958 ')).toBe('02079460958');
    expect(normalizePhone('555.0100')).toBe('5550100');
    expect(normalizePhone('+1 555/0100')).toBe('+15550100');
  });

  it('refuses text that is not a phone number', () => {
    expect(normalizePhone('call me')).toBeNull();
    expect(normalizePhone('555 0100 ext 4')).toBeNull();
    expect(normalizePhone('1+2')).toBeNull();
    expect(normalizePhone('12')).toBeNull();
    expect(normalizePhone('1'.repeat(21))).toBeNull();
    expect(normalizePhone('')).toBeNull();
  });

  it('compares phones by digits', () => {
    expect(phoneDigits('+1 (555) 0100')).toBe('15550100');
  });

  it('lower-cases emails and refuses non-emails', () => {
    expect(normalizeEmail('  Ada@Example.COM ')).toBe('ada@example.com');
    expect(normalizeEmail('not-an-email')).toBeNull();
    expect(normalizeEmail('')).toBeNull();
  });

  it('lower-cases, splits and unites tags without repeats', () => {
    expect(normalizeTags([' vip ', '', 'VIP', 'Lead'])).toEqual(['vip', 'lead']);
    expect(splitTags('a, b;c | d,,')).toEqual(['a', 'b', 'c', 'd']);
    expect(unionTags(['vip', 'x'], ['VIP', 'new'])).toEqual(['vip', 'x', 'new']);
  });
});
