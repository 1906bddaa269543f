import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { type CursorPaginationQuery, type Page, findKeysetPage, newestFirst } from 'src/core/http/pagination';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { AutomationRunEntity } from './automation-run.entity';
import type { RunActionResult, RunStatus } from './automation.types';

export interface NewRun {
  readonly automationId: string;
  readonly trigger: string;
  readonly conversationId: string | null;
  readonly matched: boolean;
  readonly status: RunStatus;
  readonly actions: RunActionResult[];
  readonly durationMs: number;
}

/** One event's rules that did not match: SKIPPED runs, nothing done, written after its commit. */
export interface SkippedRuns {
  readonly automationIds: readonly string[];
  readonly trigger: string;
  readonly conversationId: string | null;
  /** When the rules were evaluated (the runs' `createdAt`). */
  readonly at: Date;
}

export interface RunFilters {
  readonly automationId?: string;
  readonly status?: RunStatus;
  readonly from?: string;
  readonly to?: string;
}

@Injectable()
export class AutomationRunsRepository extends WorkspaceScopedRepository<AutomationRunEntity> {
  constructor(private readonly txHost: TransactionHost) {
    super(txHost, AutomationRunEntity, 'r', 'Automation run');
  }

  findPage(filters: RunFilters, query: CursorPaginationQuery): Promise<Page<AutomationRunEntity>> {
    const qb = this.scopedQuery();
    if (filters.automationId) qb.andWhere('r.automation_id = :automationId', { automationId: filters.automationId });
    if (filters.status) qb.andWhere('r.status = :status', { status: filters.status });
    if (filters.from) qb.andWhere('r.created_at >= :from', { from: filters.from });
    if (filters.to) qb.andWhere('r.created_at < :to', { to: filters.to });
    return findKeysetPage(qb, query, newestFirst<AutomationRunEntity>('r'));
  }

  /**
   * All runs of one event in ONE statement: the rows are inserted, and the matched automations'
   * `run_count` / `last_run_at` move in the same statement (a data-modifying CTE, set-based).
   * Runs are written only for automations that exist, locked `FOR KEY SHARE` once per statement (as
   * `recordSkipped`): the table has no per-row foreign-key checks (migration 1764600000000), and an
   * automation's deletion waits for the writers that saw it, then deletes its runs (`deleteOf`).
   */
  async record(runs: readonly NewRun[]): Promise<void> {
    if (runs.length === 0) return;
    const rows = runs.map((r) => ({
      automation_id: r.automationId,
      trigger: r.trigger,
      conversation_id: r.conversationId,
      matched: r.matched,
      status: r.status,
      actions: r.actions,
      duration_ms: Math.max(0, Math.round(r.durationMs)),
    }));
    await this.query(
      `WITH input AS (
         SELECT * FROM jsonb_to_recordset($2::jsonb) AS x(
           automation_id uuid, trigger text, conversation_id uuid, matched boolean, status text,
           actions jsonb, duration_ms integer)
       ), inserted AS (
         INSERT INTO automation_runs (workspace_id, automation_id, trigger, conversation_id, matched, status, actions, duration_ms)
         SELECT $1, i.automation_id, i.trigger, i.conversation_id, i.matched, i.status, i.actions, i.duration_ms
           FROM input i JOIN automations live ON live.workspace_id = $1 AND live.id = i.automation_id
            FOR KEY SHARE OF live
         RETURNING automation_id, matched, created_at
       )
       UPDATE automations a
          SET run_count = a.run_count + c.n, last_run_at = c.at
         FROM (SELECT automation_id, count(*)::int AS n, max(created_at) AS at FROM inserted WHERE matched GROUP BY automation_id) c
        WHERE a.workspace_id = $1 AND a.id = c.automation_id`,
      [JSON.stringify(rows)],
    );
  }

  /**
   * SKIPPED runs of several events in ONE statement, without JSON: per event its trigger,
   * conversation, time and the ids of the rules evaluated (comma-joined), expanded by the database.
   * Rules deleted since are left out (no run of a deleted automation), as in `record`. On its own
   * (never inside a caller's transaction) it commits without waiting for the WAL flush: a database
   * crash may take back a moment's SKIPPED runs, which record that nothing happened.
   */
  async recordSkipped(events: readonly SkippedRuns[]): Promise<void> {
    if (events.length === 0) return;
    // Inside a caller's transaction the setting would outlive this statement: only on its own.
    const asyncCommit = this.txHost.inTransaction
      ? ''
      : `WHERE (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL`;
    await this.query(
      `INSERT INTO automation_runs (workspace_id, automation_id, trigger, conversation_id, matched, status, actions, duration_ms, created_at)
       SELECT $1, live.id, e.trigger, e.conversation_id, false, 'SKIPPED', '[]'::jsonb, 0, e.at
         FROM unnest($2::text[], $3::uuid[], $4::timestamptz[], $5::text[]) AS e(trigger, conversation_id, at, ids)
         CROSS JOIN LATERAL unnest(string_to_array(e.ids, ',')::uuid[]) AS r(automation_id)
         JOIN automations live ON live.workspace_id = $1 AND live.id = r.automation_id
         ${asyncCommit}
         FOR KEY SHARE OF live`,
      [
        events.map((e) => e.trigger),
        events.map((e) => e.conversationId),
        events.map((e) => e.at.toISOString()),
        events.map((e) => e.automationIds.join(',')),
      ],
    );
  }

  /**
   * The runs of an automation being deleted, in the deleting transaction after the automation's row
   * (whose deletion waited for every writer holding it `FOR KEY SHARE`, so their runs are visible here).
   */
  async deleteOf(automationId: string): Promise<void> {
    await this.query(`DELETE FROM automation_runs WHERE workspace_id = $1 AND automation_id = $2`, [automationId]);
  }
}
