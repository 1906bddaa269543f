import { describe, expect, it } from '@jest/globals';
import type { RoutingCandidate, RoutingState } from './routing.repository';
import { rankAgents } from './routing.service';

const member = (
  userId: string,
  openConversations: number,
  lastAssignedAt: string | null = null,
  maxConversations = 5,
): RoutingCandidate => ({
  userId,
  maxConversations,
  openConversations,
  claimedSeats: 0,
  lastAssignedAt: lastAssignedAt ? new Date(lastAssignedAt) : null,
});

describe('rankAgents', () => {
  const a = '10000000-0000-4000-8000-000000000000';
  const b = '20000000-0000-4000-8000-000000000000';
  const c = '30000000-0000-4000-8000-000000000000';
  const state = (
    strategy: RoutingState['strategy'],
    online: RoutingCandidate[],
    lastAssignedUserId: string | null = null,
  ): RoutingState => ({ strategy, lastAssignedUserId, online });

  it('ROUND_ROBIN starts after the pointer and wraps around', () => {
    const online = [member(a, 0), member(b, 0), member(c, 0)];
    const rr = (pointer: string | null) => rankAgents(state('ROUND_ROBIN', online, pointer));
    expect(rr(null)).toEqual([a, b, c]);
    expect(rr(a)).toEqual([b, c, a]);
    expect(rr(b)).toEqual([c, a, b]);
    expect(rr(c)).toEqual([a, b, c]);
    // The pointer's member may be gone (AWAY, over capacity): the next one after it still goes first.
    expect(rankAgents(state('ROUND_ROBIN', [member(a, 0), member(c, 0)], b))).toEqual([c, a]);
  });

  it('LEAST_BUSY ranks by fewest open, then the one idle longest (never assigned first), then id', () => {
    const least = (online: RoutingCandidate[]) => rankAgents(state('LEAST_BUSY', online));
    expect(least([member(a, 3), member(b, 1), member(c, 2)])).toEqual([b, c, a]);
    expect(least([member(a, 1, '2026-01-01T10:00:00Z'), member(b, 1, '2026-01-01T09:00:00Z')])).toEqual([b, a]);
    expect(least([member(a, 1, '2026-01-01T10:00:00Z'), member(b, 1)])).toEqual([b, a]);
    expect(least([member(b, 0), member(a, 0)])).toEqual([a, b]);
  });

  it('leaves out members at or above capacity; nobody below capacity → empty', () => {
    expect(rankAgents(state('ROUND_ROBIN', [member(a, 2, null, 2), member(b, 1, null, 2), member(c, 6)]))).toEqual([b]);
    expect(rankAgents(state('LEAST_BUSY', [member(a, 5), member(b, 0, null, 0)]))).toEqual([]);
  });
});
