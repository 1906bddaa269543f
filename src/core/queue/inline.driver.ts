import { Logger } from '@nestjs/common';
import type { SessionPriority } from 'src/core/database/session-priority';
import type { JobName } from './job-names';
import type { JobRegistry } from './job-registry';
import { type EnqueueOptions, type JobPayload, backoffFor } from './job-queue.port';

/**
 * Runs jobs in this process, after the caller's tick (setImmediate), with the same retry and
 * backoff rules as BullMQ. Used with no REDIS_URL and as the fallback while Redis is down.
 * Durability comes from the database rows the jobs work on (e.g. inbound events), never from here.
 *
 * Each job name runs at most its handler's `concurrency` at a time, as a BullMQ worker would. On the
 * embedded engine (one database session) this is what keeps webhook acknowledgements fast under
 * load: an ack's INSERT waits behind at most that many pipeline statements, not behind every
 * message received in the last seconds (issue 16).
 */
export class InlineDriver {
  private readonly logger = new Logger('InlineJobs');
  private readonly pending = new Map<string, Promise<void>>();
  private readonly timers = new Map<NodeJS.Timeout, () => void>();
  private sequence = 0;
  private closed = false;
  private readonly running = new Map<JobName, number>();
  private readonly queued = new Map<JobName, (() => void)[]>();

  constructor(
    private readonly registry: JobRegistry,
    /** Lower bounds than the handlers declare, per job (the embedded engine: one database session). */
    private readonly caps: Partial<Record<JobName, number>> = {},
    /**
     * The embedded engine: before a job starts, wait while foreground work (webhook acks) uses the
     * one database session, at most `maxWaitMs` (the jobs cannot starve).
     */
    private readonly yieldTo?: { priority: SessionPriority; maxWaitMs: number },
  ) {}

  enqueue<T extends JobPayload>(name: JobName, data: T, options: EnqueueOptions = {}): void {
    this.registry.get(name);
    const key = options.jobId ? `${name}:${options.jobId}` : `${name}#${++this.sequence}`;
    if (this.pending.has(key)) return;
    const done = this.runWithRetries(name, data, options).finally(() => this.pending.delete(key));
    this.pending.set(key, done);
  }

  private async runWithRetries(name: JobName, data: JobPayload, options: EnqueueOptions): Promise<void> {
    const attempts = Math.max(1, options.attempts ?? 1);
    await this.wait(options.delayMs ?? 0);
    for (let attempt = 1; attempt <= attempts && !this.closed; attempt++) {
      const release = await this.slot(name);
      if (this.closed) {
        release();
        return;
      }
      try {
        if (this.yieldTo) {
          const { priority, maxWaitMs } = this.yieldTo;
          await priority.yieldToForeground(maxWaitMs);
          // A job enqueued by an ack must not inherit its foreground priority.
          await priority.background(() => this.registry.execute(name, data));
        } else await this.registry.execute(name, data);
        return;
      } catch (error) {
        release(); // the slot is not held during the backoff
        if (attempt === attempts) {
          this.logger.warn({ err: error, job: name, attempts }, `Job ${name} failed after ${attempts} attempt(s)`);
          return;
        }
        await this.wait(backoffFor(attempt, options.backoffMs));
      } finally {
        release();
      }
    }
  }

  /** Waits for a free slot of `name` (its handler's concurrency); returns the release function. */
  private async slot(name: JobName): Promise<() => void> {
    const limit = Math.max(1, Math.min(this.registry.get(name).concurrency, this.caps[name] ?? Number.POSITIVE_INFINITY));
    if ((this.running.get(name) ?? 0) >= limit) {
      await new Promise<void>((resolve) => {
        const queue = this.queued.get(name) ?? [];
        queue.push(resolve);
        this.queued.set(name, queue);
      });
    } else this.running.set(name, (this.running.get(name) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queued.get(name)?.shift();
      // The slot passes straight to the next waiter (the running count stays the same).
      if (next) next();
      else this.running.set(name, (this.running.get(name) ?? 1) - 1);
    };
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (ms <= 0) {
        setImmediate(resolve);
        return;
      }
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.set(timer, resolve);
    });
  }

  /** Jobs running or waiting for a retry in this process. */
  /** Whether a job enqueued with `jobId` has not finished yet (waiting for its delay, a slot, or running). */
  isPending(name: JobName, jobId: string): boolean {
    return this.pending.has(`${name}:${jobId}`);
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Resolves once no job is pending (tests use it to wait for side effects). */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending.values()]);
  }

  get size(): number {
    return this.pending.size;
  }

  close(): void {
    this.closed = true;
    for (const [timer, resolve] of this.timers) {
      clearTimeout(timer);
      resolve();
    }
    this.timers.clear();
  }
}
