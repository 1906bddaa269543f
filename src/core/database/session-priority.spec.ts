import { describe, expect, it } from '@jest/globals';
import { Pool } from 'pg';
import { SessionPriority, prioritisePool } from './session-priority';

describe('SessionPriority (embedded engine: acks before pipeline work, issue 16)', () => {
  it('a background job waits while foreground work runs, and no longer than its bound', async () => {
    const priority = new SessionPriority();
    let release!: () => void;
    const work = priority.foreground(() => new Promise<void>((resolve) => (release = resolve)));
    expect(priority.busy).toBe(true);
    let yielded = false;
    const waiting = priority.yieldToForeground(10_000).then(() => (yielded = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(yielded).toBe(false);
    release();
    await work;
    await waiting;
    expect(yielded).toBe(true);

    const never = priority.foreground(() => new Promise<void>(() => undefined));
    const started = Date.now();
    await priority.yieldToForeground(30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    void never;
  });

  it('work started from the foreground (a job an ack enqueued) runs as background work', async () => {
    const priority = new SessionPriority();
    const seen = await priority.foreground(async () => [
      priority.inForeground,
      priority.background(() => priority.inForeground),
    ]);
    expect(seen).toEqual([true, false]);
    expect(priority.inForeground).toBe(false);
  });

  it('serves foreground connection requests before queued background ones', async () => {
    const priority = new SessionPriority();
    // A pool of one that never connects to a server: the queue order is what is observed.
    const pool = new Pool({ max: 1 }) as unknown as {
      connect: (cb: (err: Error | null, client: unknown, done: () => void) => void) => void;
      _pendingQueue: { callback: unknown }[];
      _isFull: () => boolean;
      _idle: unknown[];
    };
    pool._isFull = () => true; // the one session is busy
    prioritisePool(pool, priority);
    const order: string[] = [];
    const request = (name: string) => () => order.push(name);
    pool.connect(request('background-1'));
    pool.connect(request('background-2'));
    await priority.foreground(async () => pool.connect(request('ack-1')));
    await priority.foreground(async () => pool.connect(request('ack-2')));
    pool.connect(request('background-3'));
    for (const item of pool._pendingQueue) (item.callback as () => void)();
    expect(order).toEqual(['ack-1', 'ack-2', 'background-1', 'background-2', 'background-3']);
  });
});
