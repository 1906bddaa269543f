import { describe, expect, it, jest } from '@jest/globals';
import type { Logger } from '@nestjs/common';
import { StartupCutoff, SweepTimer, sweepInRounds } from './sweep-timer';

describe('SweepTimer', () => {
  it('skips a run while the previous one is going, and logs a failure instead of throwing', async () => {
    const logger = { warn: jest.fn(), error: jest.fn() } as unknown as Logger;
    const timer = new SweepTimer(logger, 'sweep failed', 'warn');
    let release: () => void = () => undefined;
    const work = jest.fn(() => new Promise<void>((resolve) => (release = resolve)));
    const first = timer.run(work);
    await timer.run(work);
    expect(work).toHaveBeenCalledTimes(1);
    release();
    await first;
    await timer.run(() => Promise.reject(new Error('boom')));
    expect(logger.warn).toHaveBeenCalledWith(expect.objectContaining({ err: expect.any(Error) }), 'sweep failed');
    const next = jest.fn(async () => undefined);
    await timer.run(next);
    expect(next).toHaveBeenCalledTimes(1);
  });

  it('runs rounds while a full batch comes back, at most maxRounds', async () => {
    const sizes = [3, 3, 1, 3];
    const round = jest.fn(async () => sizes.shift() ?? 0);
    expect(await sweepInRounds(3, 20, round)).toBe(7);
    expect(round).toHaveBeenCalledTimes(3);
    expect(await sweepInRounds(2, 2, async () => 2)).toBe(4);
  });

  it('a start-up cut-off is the time since the service instance was created', async () => {
    const cutoff = new StartupCutoff();
    expect(cutoff.olderThanMs()).toBeLessThan(50);
    await new Promise((resolve) => setTimeout(resolve, 120));
    const later = cutoff.olderThanMs();
    expect(later).toBeGreaterThanOrEqual(110);
    expect(later).toBeLessThan(5_000);
  });
});
