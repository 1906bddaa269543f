import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import {
  type CursorPaginationQuery,
  type Page,
  DEFAULT_PAGE_SIZE,
  decodeCursor,
  encodeCursor,
} from 'src/core/http/pagination';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { AutomationRunEntity } from './automation-run.entity';
import type { RunActionResult, RunStatus } from './automation.types';

/** The id of the SKIPPED run of rule `a.id` expanded from event row `s`: stable across reads. */
const SKIP_RUN_ID = `md5(s.id::text || a.id::text)::uuid`;

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

  /**
   * One page of the run log, newest first: the runs of `automation_runs` (matched ones, and SKIPPED
   * ones written before migration 1764700000000) merged with the SKIPPED runs of `automation_skips`,
   * one per (event row, rule id), for rules that still exist. An expanded run's id is derived from
   * its event row and rule (`SKIP_RUN_ID`), so it is stable and the keyset `(createdAt, id)` pages
   * across both tables. Each side is read in index order and cut at the page size before the merge:
   * a rule's own log reads its trigger's events only (`automation_skips_trigger_idx`).
   */
  async findPage(filters: RunFilters, query: CursorPaginationQuery): Promise<Page<AutomationRunEntity>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const params: unknown[] = [];
    const param = (value: unknown): string => {
      params.push(value);
      return `$${params.length + 1}`;
    };
    const runs: string[] = [];
    const skips: string[] = [];
    if (filters.automationId) {
      const id = param(filters.automationId);
      runs.push(`r.automation_id = ${id}::uuid`);
      skips.push(
        // A RULE's trigger is a JSON string (a FLOW's, an object, never an event's trigger).
        `s.trigger = (SELECT live.trigger #>> '{}' FROM automations live WHERE live.workspace_id = $1 AND live.id = ${id}::uuid)`,
        `s.automation_ids @> ARRAY[${id}::uuid]`,
        `a.id = ${id}::uuid`,
      );
    }
    if (filters.status) runs.push(`r.status = ${param(filters.status)}`);
    if (filters.from) {
      const from = param(filters.from);
      runs.push(`r.created_at >= ${from}::timestamptz`);
      skips.push(`s.created_at >= ${from}::timestamptz`);
    }
    if (filters.to) {
      const to = param(filters.to);
      runs.push(`r.created_at < ${to}::timestamptz`);
      skips.push(`s.created_at < ${to}::timestamptz`);
    }
    if (query.cursor) {
      const [sort, id] = decodeCursor(query.cursor, 2);
      const [at, after] = [param(sort), param(id)];
      runs.push(`(r.created_at, r.id) < (${at}::timestamptz, ${after}::uuid)`);
      skips.push(
        `s.created_at <= ${at}::timestamptz`,
        `(s.created_at, ${SKIP_RUN_ID}) < (${at}::timestamptz, ${after}::uuid)`,
      );
    }
    const take = param(limit + 1);
    const where = (conditions: string[]) => conditions.map((c) => ` AND ${c}`).join('');
    const skipped =
      filters.status && filters.status !== 'SKIPPED'
        ? ''
        : `UNION ALL
          (SELECT ${SKIP_RUN_ID} AS id, s.workspace_id, a.id AS automation_id, s.trigger, s.conversation_id,
                  false AS matched, 'SKIPPED' AS status, '[]'::jsonb AS actions, 0 AS duration_ms, s.created_at
             FROM automation_skips s CROSS JOIN LATERAL unnest(s.automation_ids) AS a(id)
            WHERE s.workspace_id = $1${where(skips)}
              AND EXISTS (SELECT 1 FROM automations live WHERE live.workspace_id = $1 AND live.id = a.id)
            ORDER BY s.created_at DESC, 1 DESC LIMIT ${take})`;
    const rows = await this.queryRows<Record<string, unknown>>(
      `SELECT * FROM (
         (SELECT r.id, r.workspace_id, r.automation_id, r.trigger, r.conversation_id, r.matched, r.status, r.actions,
                 r.duration_ms, r.created_at
            FROM automation_runs r
           WHERE r.workspace_id = $1${where(runs)}
           ORDER BY r.created_at DESC, r.id DESC LIMIT ${take})
         ${skipped}
       ) u
       ORDER BY u.created_at DESC, u.id DESC LIMIT ${take}`,
      params,
    );
    const data = rows.slice(0, limit).map((row) => this.fromRaw(row));
    const last = data[data.length - 1];
    return {
      data,
      nextCursor: rows.length > limit && last ? encodeCursor([last.createdAt.toISOString(), last.id]) : null,
    };
  }

  /**
   * All runs of one event in ONE statement: the rows are inserted, and the matched automations'
   * `run_count` / `last_run_at` move in the same statement (a data-modifying CTE, set-based).
   * Runs are written only for automations that exist, locked `FOR KEY SHARE` once per statement: the
   * table has no per-row foreign-key checks (migration 1764600000000), and an automation's deletion
   * waits for the writers that saw it, then deletes its runs (`deleteOf`).
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
   * SKIPPED runs of several events in ONE statement, one `automation_skips` row per event (its
   * trigger, conversation, time and the ids of the rules it did not match; migration 1764700000000),
   * without JSON: the ids travel comma-joined and are split by the database. Not checked against the
   * live rules: a rule deleted meanwhile is left out when the log is read (`findPage`). On its own
   * (never inside a caller's transaction) it commits without waiting for the WAL flush: a database
   * crash may take back a moment's SKIPPED runs, which record that nothing happened.
   */
  async recordSkipped(events: readonly SkippedRuns[]): Promise<void> {
    if (events.length === 0) return;
    await this.query(
      `INSERT INTO automation_skips (workspace_id, trigger, conversation_id, automation_ids, created_at)
       SELECT $1, e.trigger, e.conversation_id, string_to_array(e.ids, ',')::uuid[], e.at
         FROM unnest($2::text[], $3::uuid[], $4::timestamptz[], $5::text[]) AS e(trigger, conversation_id, at, ids)
        WHERE ${this.txHost.asyncCommitCondition('statement')}`,
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
   * Its SKIPPED runs in `automation_skips` share rows with other rules' and are left out on read.
   */
  async deleteOf(automationId: string): Promise<void> {
    await this.query(`DELETE FROM automation_runs WHERE workspace_id = $1 AND automation_id = $2`, [automationId]);
  }
}
