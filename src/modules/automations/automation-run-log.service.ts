import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { SYSTEM_ACTOR, getTenantContext, runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { type NewRun, type SkippedRuns, AutomationRunsRepository } from './automation-runs.repository';

/** Events per flushing statement at most (a burst's backlog is written in a few statements). */
const MAX_EVENTS_PER_FLUSH = 500;

/**
 * The run log's writer (DESIGN §8 `GET /automations/runs`). Every evaluated rule leaves a run:
 *
 * - a rule that matched (SUCCESS / FAILED, with its actions) is written in the event's transaction,
 *   with the automation's `runCount` / `lastRunAt`, so the log and the counters commit (or roll back)
 *   with what the actions did;
 * - a rule that did not match (SKIPPED: nothing happened, nothing to roll back) is written once the
 *   event's transaction has committed, together with the SKIPPED runs of every other event committed
 *   meanwhile, in one statement per workspace (issue 16 item 3: 50 active rules meant 50 rows with
 *   two foreign-key checks each inside every inbound event's transaction). The run keeps the time
 *   it was evaluated (`createdAt`), not the time it was written. A rolled-back event leaves none (as
 *   before), and a process that dies between the commit and the write loses that moment's SKIPPED
 *   runs — the log is a diagnostic, the only thing they record is that nothing happened.
 *
 * Writes are single-flight per process: while one statement runs, the next events' runs gather, so
 * the busier the pipeline the more events share a statement (no timer, no wait when idle).
 */
@Injectable()
export class AutomationRunLog implements BeforeApplicationShutdown {
  private readonly logger = new Logger('AutomationRunLog');
  private pending: { workspaceId: string; skipped: SkippedRuns }[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly tx: TransactionHost,
    private readonly runs: AutomationRunsRepository,
  ) {}

  /** Records one event's runs: matched ones now (in the caller's transaction), SKIPPED ones after its commit. */
  async record(runs: readonly NewRun[], skipped: readonly SkippedRuns[]): Promise<void> {
    await this.runs.record(runs);
    const events = skipped.filter((s) => s.automationIds.length > 0);
    if (events.length === 0) return;
    const workspaceId = getTenantContext().workspaceId;
    await this.tx.afterCommit(() => {
      for (const s of events) this.pending.push({ workspaceId, skipped: s });
      this.flushing ??= this.flush();
    });
  }

  /** Waits for the SKIPPED runs recorded so far to be written (shutdown, tests). */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.drain();
  }

  private async flush(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, MAX_EVENTS_PER_FLUSH);
        const byWorkspace = new Map<string, SkippedRuns[]>();
        for (const { workspaceId, skipped } of batch) {
          const list = byWorkspace.get(workspaceId);
          if (list) list.push(skipped);
          else byWorkspace.set(workspaceId, [skipped]);
        }
        for (const [workspaceId, events] of byWorkspace) {
          try {
            await runAsWorkspace(workspaceId, () => this.runs.recordSkipped(events), SYSTEM_ACTOR);
          } catch (error) {
            const runs = events.reduce((n, e) => n + e.automationIds.length, 0);
            this.logger.warn({ err: error, workspaceId, runs }, 'SKIPPED automation runs could not be written');
          }
        }
      }
    } finally {
      this.flushing = null;
    }
  }
}
