import { describe, expect, it } from '@jest/globals';
import type { RoutingCandidate } from './routing.repository';
import { chooseAgent } from './routing.service';

const member = (userId: string, openConversations: number, lastAssignedAt: string | null = null): RoutingCandidate => ({
  userId,
  maxConversations: 5,
  openConversations,
  lastAssignedAt: lastAssignedAt ? new Date(lastAssignedAt) : null,
});

describe('chooseAgent', () => {
  const a = '10000000-0000-4000-8000-000000000000';
  const b = '20000000-0000-4000-8000-000000000000';
  const c = '30000000-0000-4000-8000-000000000000';

  it('ROUND_ROBIN takes the next member after the pointer, wrapping around', () => {
    const available = [member(a, 0), member(b, 0), member(c, 0)];
    const rr = (pointer: string | null) =>
      chooseAgent({ id: 'q', strategy: 'ROUND_ROBIN', lastAssignedUserId: pointer }, available);
    expect(rr(null)).toBe(a);
    expect(rr(a)).toBe(b);
    expect(rr(b)).toBe(c);
    expect(rr(c)).toBe(a);
    // The pointer's member may be gone (AWAY, over capacity): the next one after it still goes first.
    expect(chooseAgent({ id: 'q', strategy: 'ROUND_ROBIN', lastAssignedUserId: b }, [member(a, 0), member(c, 0)])).toBe(
      c,
    );
  });

  it('LEAST_BUSY takes the fewest open, then the one idle longest (never assigned first)', () => {
    const least = (available: RoutingCandidate[]) =>
      chooseAgent({ id: 'q', strategy: 'LEAST_BUSY', lastAssignedUserId: null }, available);
    expect(least([member(a, 3), member(b, 1), member(c, 2)])).toBe(b);
    expect(least([member(a, 1, '2026-01-01T10:00:00Z'), member(b, 1, '2026-01-01T09:00:00Z')])).toBe(b);
    expect(least([member(a, 1, '2026-01-01T10:00:00Z'), member(b, 1)])).toBe(b);
    expect(least([member(b, 0), member(a, 0)])).toBe(a);
  });

  it('nobody available → null', () => {
    expect(chooseAgent({ id: 'q', strategy: 'ROUND_ROBIN', lastAssignedUserId: null }, [])).toBeNull();
  });
});
