import type { Logger } from '@nestjs/common';

/**
 * What every periodic sweep (`@Interval`/`@Timeout` in worker roles) needs around its work: no
 * second run while one is still going in this process, and a failure logged, never thrown into the
 * scheduler. Correctness across processes stays with the SQL (SKIP LOCKED claims).
 *
 * ```ts
 * private readonly timer = new SweepTimer(this.logger, 'SLA breach check failed');
 * @Interval(30_000) tick() { return this.timer.run(() => this.checkBreaches()); }
 * ```
 */
export class SweepTimer {
  private running = false;

  constructor(
    private readonly logger: Logger,
    private readonly failureMessage: string,
    private readonly failureLevel: 'warn' | 'error' = 'error',
  ) {}

  /** Runs `work` unless the previous run has not finished; resolves once done (or skipped). */
  async run(work: () => Promise<unknown>): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await work();
    } catch (error) {
      this.logger[this.failureLevel]({ err: error }, this.failureMessage);
    } finally {
      this.running = false;
    }
  }
}

/**
 * The batch loop of a sweep: `round` handles at most `batch` rows and says how many it handled; a
 * full batch means more may be waiting, so it runs again, up to `maxRounds` times (a larger backlog
 * waits for the next tick). Returns the rows handled in all.
 */
export async function sweepInRounds(batch: number, maxRounds: number, round: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = 0; i < maxRounds; i++) {
    const handled = await round();
    total += handled;
    if (handled < batch) break;
  }
  return total;
}

/**
 * The age cut-off of a start-up sweep: only rows older than this application instance. Jobs of rows
 * written before it started died with the old process (in-process jobs, timers); rows written since
 * were enqueued by the running processes and are left to their jobs (the periodic sweep still
 * catches any that stay due). Create it when the service is constructed (application start). Ages are
 * compared with the database's clock like every sweep's, so only the elapsed time matters.
 */
export class StartupCutoff {
  private readonly startedAt = performance.now();

  /** Milliseconds since this instance was created. */
  olderThanMs(): number {
    return Math.floor(performance.now() - this.startedAt);
  }
}
