import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SKIPPED runs stored one row per event (session 31, issue 16 item 3).
 *
 * DESIGN §8 logs every evaluated rule; a rule that did not match leaves a SKIPPED run. With 50 active
 * rules that was 50 `automation_runs` rows per inbound message — each a heap tuple and three index
 * entries, about 200 of the ~330 WAL records a message wrote. Now the rules an event did not match
 * are one `automation_skips` row: the event's trigger, conversation and evaluation time, and the ids
 * of the rules it skipped (`uuid[]`). `GET /automations/runs` expands them on read (one run per id,
 * DESIGN §8's shape; AutomationRunsRepository.findPage), merged with `automation_runs` (matched runs,
 * and the SKIPPED runs written before this migration, which stay where they are).
 *
 * Indexes: the list order (`workspace_id, created_at DESC, id DESC`), and the same order within one
 * trigger, which is what a rule's own run log reads (a rule is only evaluated on its trigger's events).
 * A deleted rule's id stays in the arrays and is left out on read (no array rewrite per deletion).
 */
export class AutomationSkips1764700000000 implements MigrationInterface {
  name = 'AutomationSkips1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE automation_skips (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        trigger text NOT NULL,
        conversation_id uuid,
        automation_ids uuid[] NOT NULL,
        created_at timestamptz(3) NOT NULL
      )`);
    await q.query(
      `CREATE INDEX automation_skips_list_idx ON automation_skips (workspace_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX automation_skips_trigger_idx ON automation_skips (workspace_id, trigger, created_at DESC, id DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `INSERT INTO automation_runs (workspace_id, automation_id, trigger, conversation_id, matched, status, actions, duration_ms, created_at)
       SELECT s.workspace_id, a.id, s.trigger, s.conversation_id, false, 'SKIPPED', '[]'::jsonb, 0, s.created_at
         FROM automation_skips s CROSS JOIN LATERAL unnest(s.automation_ids) AS a(id)
        WHERE EXISTS (SELECT 1 FROM automations live WHERE live.workspace_id = s.workspace_id AND live.id = a.id)`,
    );
    await q.query(`DROP TABLE automation_skips`);
  }
}
