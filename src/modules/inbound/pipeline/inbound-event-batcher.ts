import { Injectable, Logger } from '@nestjs/common';
import { sessionPriority } from 'src/core/database/session-priority';
import { TransactionHost } from 'src/core/database/transaction-host';
import { getTenantContext, runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { InboundEventRunner, type RunOutcome } from './inbound-event-runner';

/**
 * Group processing (issue 16 item 3; like group commit, for the pipeline): the `inbound` jobs running
 * in this process at the same time hand their events here, and the events of one workspace that are
 * waiting when a group can start run together — one claim, one transaction, one mark-processed
 * (InboundEventRunner.runBatch). No timer: an idle process starts a job's event at once (a group of
 * one), a busy one gathers events while its groups run. Each job's promise settles with its own
 * event's outcome once its group has committed (or gone one by one after a rollback).
 *
 * PostgreSQL: up to GROUPS_AT_ONCE groups run at a time (each on its own connection, so the worker's
 * JavaScript and PostgreSQL overlap), at most MAX_GROUP events each (short transactions). Embedded
 * engine: one group at a time (one database session), at most EMBEDDED_MAX_GROUP events, so a
 * webhook ack never waits behind a long transaction.
 */
const GROUPS_AT_ONCE = 4;
/** Session 30: 8 → 12 (AI round 229–233 → 250–255 msg/s; 3.9 → 3.2 statements per message). */
const MAX_GROUP = 12;
const EMBEDDED_MAX_GROUP = 4;

interface Waiting {
  readonly workspaceId: string;
  readonly eventId: string;
  readonly resolve: (outcome: RunOutcome) => void;
  readonly reject: (error: unknown) => void;
}

@Injectable()
export class InboundEventBatcher {
  private readonly logger = new Logger('InboundGroups');
  private waiting: Waiting[] = [];
  private running = 0;
  private scheduled = false;
  /** Groups that run at the same time in this process. */
  readonly groupsAtOnce: number;
  private readonly maxGroup: number;
  /** Groups started and events they held (tests, diagnostics). */
  readonly stats = { groups: 0, events: 0 };

  constructor(
    private readonly runner: InboundEventRunner,
    tx: TransactionHost,
  ) {
    // Several sessions (PostgreSQL) or the embedded engine's one.
    this.groupsAtOnce = tx.commitsApart ? GROUPS_AT_ONCE : 1;
    this.maxGroup = tx.commitsApart ? MAX_GROUP : EMBEDDED_MAX_GROUP;
  }

  /** Runs the stored event (in the caller's workspace) with whatever else is waiting; its own outcome. */
  submit(eventId: string): Promise<RunOutcome> {
    const { workspaceId } = getTenantContext();
    return new Promise<RunOutcome>((resolve, reject) => {
      this.waiting.push({ workspaceId, eventId, resolve, reject });
      this.schedule();
    });
  }

  /** Groups running now (tests, diagnostics). */
  get runningCount(): number {
    return this.running;
  }

  /** Whether the event is handed over and not yet in a group (tests, diagnostics). */
  isWaiting(eventId: string): boolean {
    return this.waiting.some((w) => w.eventId === eventId);
  }

  /** Starts groups on the next turn of the event loop: jobs handed over in the same turn go together. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.startGroups();
    });
  }

  private startGroups(): void {
    while (this.running < this.groupsAtOnce && this.waiting.length > 0) {
      // The oldest waiting event's workspace, then its other waiting events (tenancy: one per group).
      const workspaceId = this.waiting[0]!.workspaceId;
      const group: Waiting[] = [];
      const rest: Waiting[] = [];
      for (const w of this.waiting) {
        if (w.workspaceId === workspaceId && group.length < this.maxGroup) group.push(w);
        else rest.push(w);
      }
      this.waiting = rest;
      this.running++;
      this.stats.groups++;
      this.stats.events += group.length;
      // A group is background work even when a webhook ack's job handed it over (embedded engine).
      void sessionPriority
        .background(() => runAsWorkspace(workspaceId, () => this.runner.runBatch(group.map((w) => w.eventId))))
        .then(
          (outcomes) => group.forEach((w, i) => w.resolve(outcomes[i] ?? 'skipped')),
          (error: unknown) => {
            this.logger.warn({ err: error, events: group.length }, 'Inbound group failed');
            for (const w of group) w.reject(error);
          },
        )
        .finally(() => {
          this.running--;
          // Next turn: the jobs this group released hand over their successors' events first.
          this.schedule();
        });
    }
  }
}
