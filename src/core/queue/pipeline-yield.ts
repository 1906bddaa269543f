/**
 * The pipeline yields the CPU to webhook acknowledgements (issue 16; docs/decisions.md "Session 23:
 * the pipeline yields to an ack flood"). On PostgreSQL + Redis with separate `api` and `worker`
 * processes on one machine, the pipeline's backlog takes every free cycle — the worker's node
 * process (lowered by WORKER_NICE) and its PostgreSQL backends (not lowered) — while the acks it
 * competes with are the latency-bound work. So:
 *
 * - the api measures the rate at which it acknowledges events of a yielding queue (`YieldMeter`,
 *   fed once per `addBulk`, not per request) and, while that rate is at least PIPELINE_YIELD_ACK_RATE
 *   per second, keeps a flag in Redis (`<prefix>:<queue>:yield`, a TTL of YIELD_FLAG_TTL_MS,
 *   refreshed at most every YIELD_WINDOW_MS);
 * - the workers of that queue read the flag every YIELD_POLL_MS (one GET, not per job) and run at
 *   PIPELINE_YIELD_CONCURRENCY instead of their full concurrency while it is there (`YieldGovernor`).
 *
 * No starvation: the worker yields (a lowered concurrency, or paused at 0: the default) for at most
 * PIPELINE_YIELD_MAX_MS in a row and then ignores the flag for as long again, and the flag expires on
 * its own when the acks stop (or the api dies). In-process jobs (embedded engine, or Redis down) do
 * not take part: there the session priority orders acks and jobs (core/database/session-priority).
 */

/** The rate is measured over windows of at least this long; the flag is refreshed at most this often. */
export const YIELD_WINDOW_MS = 250;
/**
 * The flag lives this long after its last refresh (two windows: one refresh may come late without the
 * flag lapsing mid-flood), so the worker is back at full speed within ~0.6 s of the flood's end (was
 * 1 s + a 250 ms read until session 30: a burst's backlog waited ~1 s for nothing).
 */
export const YIELD_FLAG_TTL_MS = 2 * YIELD_WINDOW_MS;
/** How often a yielding queue's workers read the flag (one GET per worker process, never per job). */
export const YIELD_POLL_MS = 100;

/** The Redis key (BullMQ's `toKey`) of a queue's yield flag. */
export const YIELD_KEY = 'yield';

/** Api side: acks counted per window; `record` says when the flag is to be (re)published. */
export class YieldMeter {
  private windowStart: number;
  private count = 0;
  private lastAt: number;

  constructor(
    private readonly ackRate: number,
    now: number,
  ) {
    this.windowStart = now;
    this.lastAt = now;
  }

  /** Adds `acks` acknowledged at `now`; true when a window just closed at or above the rate. */
  record(acks: number, now: number): boolean {
    if (this.ackRate <= 0) return false;
    // A quiet gap longer than a window ends the open window unreported: its acks (a flood's tail)
    // are history, and counting them against a later ack would raise the flag for a trickle.
    if (now - this.lastAt > YIELD_WINDOW_MS) {
      this.windowStart = now;
      this.count = 0;
    }
    this.lastAt = now;
    this.count += acks;
    const elapsed = now - this.windowStart;
    if (elapsed < YIELD_WINDOW_MS) return false;
    const rate = (this.count * 1000) / elapsed;
    this.windowStart = now;
    this.count = 0;
    return rate >= this.ackRate;
  }
}

/** Worker side: whether to yield now, given whether the flag is set, with the PIPELINE_YIELD_MAX_MS cap. */
export class YieldGovernor {
  private yieldingSince: number | null = null;
  private ignoreUntil = 0;

  constructor(private readonly maxMs: number) {}

  shouldYield(flag: boolean, now: number): boolean {
    if (now < this.ignoreUntil || !flag) {
      this.yieldingSince = null;
      return false;
    }
    this.yieldingSince ??= now;
    if (now - this.yieldingSince >= this.maxMs) {
      this.yieldingSince = null;
      this.ignoreUntil = now + this.maxMs;
      return false;
    }
    return true;
  }
}
