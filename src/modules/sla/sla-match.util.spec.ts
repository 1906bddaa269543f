import { describe, expect, it } from '@jest/globals';
import { dueTimes, firstMatchingPolicy, policyMatches } from './sla-match.util';

const any = { active: true, priorities: [], channelTypes: [], queueIds: [] };
const queue = '6f1c0f9e-7c1a-4d2b-9e4a-1a2b3c4d5e6f';

describe('SLA policy matching', () => {
  it('empty conditions match anything; inactive policies never match', () => {
    expect(policyMatches(any, { priority: 'LOW', channelType: null, queueId: null })).toBe(true);
    expect(policyMatches({ ...any, active: false }, { priority: 'LOW', channelType: 'CUSTOM', queueId: null })).toBe(
      false,
    );
  });

  it('every non-empty list must contain the value', () => {
    const policy = { ...any, priorities: ['HIGH', 'URGENT'], channelTypes: ['CUSTOM'], queueIds: [queue] };
    expect(policyMatches(policy, { priority: 'HIGH', channelType: 'CUSTOM', queueId: queue })).toBe(true);
    expect(policyMatches(policy, { priority: 'LOW', channelType: 'CUSTOM', queueId: queue })).toBe(false);
    expect(policyMatches(policy, { priority: 'HIGH', channelType: 'LINE', queueId: queue })).toBe(false);
    expect(policyMatches(policy, { priority: 'HIGH', channelType: null, queueId: queue })).toBe(false);
    expect(policyMatches(policy, { priority: 'HIGH', channelType: 'CUSTOM', queueId: null })).toBe(false);
  });

  it('takes the first match in the order given', () => {
    const a = { ...any, name: 'a', priorities: ['URGENT'] };
    const b = { ...any, name: 'b' };
    const c = { ...any, name: 'c' };
    expect(firstMatchingPolicy([a, b, c], { priority: 'URGENT', channelType: null, queueId: null })?.name).toBe('a');
    expect(firstMatchingPolicy([a, b, c], { priority: 'LOW', channelType: null, queueId: null })?.name).toBe('b');
    expect(firstMatchingPolicy([a], { priority: 'LOW', channelType: null, queueId: null })).toBeNull();
  });

  it('counts due times in minutes from creation', () => {
    const from = new Date('2026-03-01T10:00:00.000Z');
    expect(dueTimes({ firstResponseMinutes: 15, resolutionMinutes: 24 * 60 }, from)).toEqual({
      firstResponseDueAt: new Date('2026-03-01T10:15:00.000Z'),
      resolutionDueAt: new Date('2026-03-02T10:00:00.000Z'),
    });
  });
});
