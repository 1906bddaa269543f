import { Logger } from '@nestjs/common';
import type { JobName } from './job-names';
import type { JobRegistry } from './job-registry';
import { type EnqueueOptions, type JobPayload, backoffFor } from './job-queue.port';

/**
 * Runs jobs in this process, after the caller's tick (setImmediate), with the same retry and
 * backoff rules as BullMQ. Used with no REDIS_URL and as the fallback while Redis is down.
 * Durability comes from the database rows the jobs work on (e.g. inbound events), never from here.
 */
export class InlineDriver {
  private readonly logger = new Logger('InlineJobs');
  private readonly pending = new Map<string, Promise<void>>();
  private readonly timers = new Map<NodeJS.Timeout, () => void>();
  private sequence = 0;
  private closed = false;

  constructor(private readonly registry: JobRegistry) {}

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
      try {
        await this.registry.execute(name, data);
        return;
      } catch (error) {
        if (attempt === attempts) {
          this.logger.warn({ err: error, job: name, attempts }, `Job ${name} failed after ${attempts} attempt(s)`);
          return;
        }
        await this.wait(backoffFor(attempt, options.backoffMs));
      }
    }
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
