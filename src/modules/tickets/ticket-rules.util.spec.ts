import { describe, expect, it } from '@jest/globals';
import { normalizeTags } from 'src/core/domain/vocabulary';
import { automaticSubject, resolvedAtAfter, transitionError, truncateText } from './ticket-rules.util';
import { TICKET_STATUSES } from './tickets.constants';

describe('ticket rules', () => {
  it('allows every transition except out of CLOSED to anything but OPEN', () => {
    for (const from of TICKET_STATUSES) {
      for (const to of TICKET_STATUSES) {
        const refused = from === 'CLOSED' && to !== 'OPEN' && to !== 'CLOSED';
        expect(transitionError(from, to) !== null).toBe(refused);
      }
    }
    expect(transitionError('CLOSED', 'RESOLVED')).toContain('reopened');
  });

  it('stamps resolvedAt entering RESOLVED or CLOSED, keeps it between them, clears it when reopened', () => {
    const now = new Date('2026-01-02T03:04:05.678Z');
    const earlier = new Date('2026-01-01T00:00:00.000Z');
    expect(resolvedAtAfter('RESOLVED', null, now)).toEqual(now);
    expect(resolvedAtAfter('CLOSED', null, now)).toEqual(now);
    expect(resolvedAtAfter('CLOSED', earlier, now)).toEqual(earlier);
    expect(resolvedAtAfter('OPEN', earlier, now)).toBeNull();
    expect(resolvedAtAfter('WAITING', earlier, now)).toBeNull();
    expect(resolvedAtAfter('IN_PROGRESS', null, now)).toBeNull();
  });

  it('builds the automatic subject from the text, at most 80 characters', () => {
    expect(automaticSubject({ text: '  My   order\n is late ', type: 'TEXT' }, 'Ada')).toBe('My order is late');
    const long = automaticSubject({ text: 'x'.repeat(200), type: 'TEXT' }, 'Ada');
    expect(long).toHaveLength(80);
    expect(long.endsWith('…')).toBe(true);
    expect(automaticSubject({ text: null, type: 'IMAGE' }, 'Ada Lovelace')).toBe('Image from Ada Lovelace');
    expect(automaticSubject({ text: '   ', type: 'FILE' }, null)).toBe('File from a customer');
    expect(automaticSubject({ text: null, type: 'POSTBACK' }, ' ')).toBe('Button reply from a customer');
    expect(automaticSubject({ text: null, type: 'IMAGE' }, 'N'.repeat(200))).toHaveLength(80);
  });

  it('truncates whole text and keeps short text', () => {
    expect(truncateText('abc', 3)).toBe('abc');
    expect(truncateText('abcd', 3)).toBe('ab…');
  });

  it('normalises tags', () => {
    expect(normalizeTags([' VIP ', 'vip', '', 'Billing', 'billing ', 'b'])).toEqual(['vip', 'billing', 'b']);
  });
});
