import { describe, expect, it } from '@jest/globals';
import { YIELD_WINDOW_MS, YieldGovernor, YieldMeter } from './pipeline-yield';

// Pure logic with explicit clock values (the real flag and worker: test/e2e/inbox/pipeline-yield.e2e-spec.ts).
describe('YieldMeter (api side): the ack rate per window', () => {
  it('reports a window at or above the rate, not one below it, and only when a window closes', () => {
    const meter = new YieldMeter(200, 0);
    // 40 acks within the window: nothing to say before it closes.
    expect(meter.record(40, 100)).toBe(false);
    // 10 more at 250 ms: 50 acks / 0.25 s = 200/s, at the rate.
    expect(meter.record(10, YIELD_WINDOW_MS)).toBe(true);
    // Next window: 49 acks over 250 ms = 196/s, below.
    expect(meter.record(49, 2 * YIELD_WINDOW_MS)).toBe(false);
    // A long quiet gap dilutes the rate: 100 acks over 1 s = 100/s.
    expect(meter.record(100, 2 * YIELD_WINDOW_MS + 1000)).toBe(false);
  });

  it("does not count a flood's unreported tail against a lone ack after a quiet gap", () => {
    const meter = new YieldMeter(20, 0);
    expect(meter.record(100, 0)).toBe(false);
    expect(meter.record(150, 200)).toBe(false); // the flood's last, still open window
    // 5 s later one ack: 251 acks / 5.2 s would be 48/s; the tail is history, nothing is reported.
    expect(meter.record(1, 5_200)).toBe(false);
    expect(meter.record(1, 5_400)).toBe(false);
    expect(meter.record(1, 5_600)).toBe(false);
  });

  it('never reports with a rate of 0 (PIPELINE_YIELD_ACK_RATE=0 turns yielding off)', () => {
    const meter = new YieldMeter(0, 0);
    expect(meter.record(1_000_000, 1000)).toBe(false);
  });
});

describe('YieldGovernor (worker side): yields while the flag is set, for at most maxMs in a row', () => {
  it('yields with the flag and returns to full concurrency without it', () => {
    const g = new YieldGovernor(10_000);
    expect(g.shouldYield(false, 0)).toBe(false);
    expect(g.shouldYield(true, 250)).toBe(true);
    expect(g.shouldYield(true, 5_000)).toBe(true);
    expect(g.shouldYield(false, 5_250)).toBe(false);
    // A new flood starts a new yield period.
    expect(g.shouldYield(true, 6_000)).toBe(true);
    expect(g.shouldYield(true, 15_999)).toBe(true);
  });

  it('after maxMs of continuous yielding ignores the flag for as long again, then yields again', () => {
    const g = new YieldGovernor(10_000);
    expect(g.shouldYield(true, 0)).toBe(true);
    expect(g.shouldYield(true, 9_999)).toBe(true);
    expect(g.shouldYield(true, 10_000)).toBe(false);
    expect(g.shouldYield(true, 15_000)).toBe(false);
    expect(g.shouldYield(true, 19_999)).toBe(false);
    expect(g.shouldYield(true, 20_000)).toBe(true);
  });
});
