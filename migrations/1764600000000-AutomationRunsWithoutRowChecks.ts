import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `automation_runs` without per-row foreign-key checks (session 30, issue 16 item 3).
 *
 * The run log is the pipeline's widest write: with 50 rules, every inbound message writes 50 SKIPPED
 * runs. Each row paid two referential-integrity checks (a `SELECT … FOR KEY SHARE` on `workspaces`
 * and one on `automations`), which doubled the insert's cost (15,000 rows: 290 ms with them, 135 ms
 * without, on this machine's PostgreSQL 15). What they guaranteed is kept by the statements instead:
 *
 * - every insert already joins the live automation (`JOIN automations live`) and now locks it
 *   `FOR KEY SHARE` once per statement — the lock the checks took once per row — so a run can only
 *   be written for an automation that exists, and a deletion waits for the writers that saw it;
 * - deleting an automation deletes its runs in the same transaction (AutomationsRepository), which
 *   the cascade did; a workspace's automations were and are removed by their own cascade.
 */
export class AutomationRunsWithoutRowChecks1764600000000 implements MigrationInterface {
  name = 'AutomationRunsWithoutRowChecks1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE automation_runs DROP CONSTRAINT automation_runs_workspace_id_automation_id_fkey`);
    await q.query(`ALTER TABLE automation_runs DROP CONSTRAINT automation_runs_workspace_id_fkey`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `DELETE FROM automation_runs r WHERE NOT EXISTS (SELECT 1 FROM automations a WHERE a.workspace_id = r.workspace_id AND a.id = r.automation_id)`,
    );
    await q.query(
      `ALTER TABLE automation_runs ADD CONSTRAINT automation_runs_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE`,
    );
    await q.query(
      `ALTER TABLE automation_runs ADD CONSTRAINT automation_runs_workspace_id_automation_id_fkey FOREIGN KEY (workspace_id, automation_id) REFERENCES automations (workspace_id, id) ON DELETE CASCADE`,
    );
  }
}
