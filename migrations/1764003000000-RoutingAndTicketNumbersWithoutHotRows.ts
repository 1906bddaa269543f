import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * New conversations no longer queue behind a queue-wide or workspace-wide row lock (session 20).
 *
 * - Round-robin pointer: `queue_members.last_assigned_at` replaces `queues.last_assigned_user_id`.
 *   The queue's pointer is the member with the latest stamp; an assignment stamps only its own member
 *   row (which the agent's `agent_status` lock already serialises), so no transaction waits to move
 *   it. The member a queue pointed at keeps being its pointer.
 * - Ticket numbers: one SEQUENCE per workspace, `ticket_numbers_<workspace id without dashes>`,
 *   replaces the `ticket_counters` row that stayed locked from a ticket's creation until its
 *   transaction ended. Triggers create it with the workspace and drop it with the workspace; existing
 *   workspaces continue after their counter (or their highest ticket number). A rolled-back creation
 *   leaves a gap in the numbers (a sequence does not give numbers back).
 */
export class RoutingAndTicketNumbersWithoutHotRows1764003000000 implements MigrationInterface {
  name = 'RoutingAndTicketNumbersWithoutHotRows1764003000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE queue_members ADD COLUMN last_assigned_at timestamptz(3)`);
    await q.query(`
      UPDATE queue_members qm SET last_assigned_at = now()
        FROM queues q
       WHERE q.workspace_id = qm.workspace_id AND q.id = qm.queue_id AND q.last_assigned_user_id = qm.user_id`);
    await q.query(`ALTER TABLE queues DROP COLUMN last_assigned_user_id`);

    await q.query(`
      CREATE FUNCTION ticket_number_sequence(ws uuid) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$ SELECT 'ticket_numbers_' || replace(ws::text, '-', '') $$`);
    await q.query(`
      CREATE FUNCTION ticket_number_sequence_created() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        EXECUTE format('CREATE SEQUENCE IF NOT EXISTS %I AS bigint MINVALUE 1', ticket_number_sequence(NEW.id));
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION ticket_number_sequence_dropped() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        EXECUTE format('DROP SEQUENCE IF EXISTS %I', ticket_number_sequence(OLD.id));
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER workspaces_ticket_number_sequence_created AFTER INSERT ON workspaces
        FOR EACH ROW EXECUTE FUNCTION ticket_number_sequence_created()`);
    await q.query(`
      CREATE TRIGGER workspaces_ticket_number_sequence_dropped AFTER DELETE ON workspaces
        FOR EACH ROW EXECUTE FUNCTION ticket_number_sequence_dropped()`);
    // Existing workspaces: the next number is the counter's, and never one a ticket already has.
    await q.query(`
      DO $$
      DECLARE w record;
      BEGIN
        FOR w IN
          SELECT ws.id,
                 greatest(coalesce((SELECT c.next_number FROM ticket_counters c WHERE c.workspace_id = ws.id), 1),
                          coalesce((SELECT max(t.number) + 1 FROM tickets t WHERE t.workspace_id = ws.id), 1)) AS next
            FROM workspaces ws
        LOOP
          EXECUTE format('CREATE SEQUENCE IF NOT EXISTS %I AS bigint MINVALUE 1', ticket_number_sequence(w.id));
          PERFORM setval(ticket_number_sequence(w.id)::regclass, w.next, false);
        END LOOP;
      END $$`);
    await q.query(`DROP TABLE ticket_counters`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE ticket_counters (
        workspace_id uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
        next_number bigint NOT NULL CHECK (next_number > 0)
      )`);
    await q.query(`
      DO $$
      DECLARE w record;
      BEGIN
        FOR w IN SELECT id FROM workspaces LOOP
          INSERT INTO ticket_counters (workspace_id, next_number)
          SELECT w.id, greatest(
                   coalesce((SELECT max(t.number) + 1 FROM tickets t WHERE t.workspace_id = w.id), 1),
                   coalesce((SELECT s.last_value + 1 FROM pg_sequences s WHERE s.sequencename = ticket_number_sequence(w.id)), 1));
          EXECUTE format('DROP SEQUENCE IF EXISTS %I', ticket_number_sequence(w.id));
        END LOOP;
      END $$`);
    await q.query(`DROP TRIGGER IF EXISTS workspaces_ticket_number_sequence_dropped ON workspaces`);
    await q.query(`DROP TRIGGER IF EXISTS workspaces_ticket_number_sequence_created ON workspaces`);
    await q.query(`DROP FUNCTION IF EXISTS ticket_number_sequence_dropped()`);
    await q.query(`DROP FUNCTION IF EXISTS ticket_number_sequence_created()`);
    await q.query(`DROP FUNCTION IF EXISTS ticket_number_sequence(uuid)`);
    await q.query(`ALTER TABLE queues ADD COLUMN last_assigned_user_id uuid`);
    await q.query(`
      UPDATE queues q SET last_assigned_user_id = (
        SELECT qm.user_id FROM queue_members qm
         WHERE qm.workspace_id = q.workspace_id AND qm.queue_id = q.id AND qm.last_assigned_at IS NOT NULL
         ORDER BY qm.last_assigned_at DESC, qm.user_id DESC LIMIT 1)`);
    await q.query(`ALTER TABLE queue_members DROP COLUMN last_assigned_at`);
  }
}
