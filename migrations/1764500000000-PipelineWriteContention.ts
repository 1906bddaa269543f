import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Less work and fewer lock waits per inbound message (session 27, issue 16 items 1 and 3).
 *
 * - `analytics_message_slots`' shard: each database session now takes the next of 16 shards in turn
 *   the first time it writes one (a sequence, remembered in the session's `sis.analytics_shard`
 *   setting) instead of `pg_backend_pid() % 16`. Two sessions whose process ids differ by a multiple
 *   of 16 wrote the same row, so their transactions queued behind each other at the message store
 *   until the first committed — for a third of 4-connection pools on every transaction
 *   (docs/performance.md, "Session 26"). Sessions that take shards in turn collide only past 16. A
 *   rolled-back transaction forgets the setting (PostgreSQL undoes it): the session then takes another
 *   shard, which changes nothing for readers, who sum the shards.
 * - `inbound_events`: two indexes every write paid for and no read needed. `UNIQUE (workspace_id, id)`
 *   repeated the primary key (no foreign key names it): every stored event and each of its two status
 *   updates (neither is HOT: `status` is in partial-index predicates) inserted an entry and checked its
 *   uniqueness against the row's earlier versions. `inbound_events_processing_idx` served only the
 *   recovery sweep's look for PROCESSING events, which the sender index's predicate
 *   (`status IN ('RECEIVED', 'PROCESSING')`) covers too, a sweep every 30 s.
 */
export class PipelineWriteContention1764500000000 implements MigrationInterface {
  name = 'PipelineWriteContention1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SEQUENCE analytics_slots_shard_seq`);
    await q.query(`
      CREATE OR REPLACE FUNCTION analytics_slots_shard() RETURNS smallint LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        shard text := current_setting('sis.analytics_shard', true);
      BEGIN
        IF shard IS NULL OR shard = '' THEN
          shard := (nextval('analytics_slots_shard_seq') % 16)::text;
          PERFORM set_config('sis.analytics_shard', shard, false);
        END IF;
        RETURN shard::smallint;
      END $$`);
    await q.query(`ALTER TABLE inbound_events DROP CONSTRAINT inbound_events_workspace_id_key`);
    await q.query(`DROP INDEX inbound_events_processing_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX inbound_events_processing_idx ON inbound_events (processing_started_at) WHERE status = 'PROCESSING'`,
    );
    await q.query(`ALTER TABLE inbound_events ADD CONSTRAINT inbound_events_workspace_id_key UNIQUE (workspace_id, id)`);
    await q.query(`
      CREATE OR REPLACE FUNCTION analytics_slots_shard() RETURNS smallint LANGUAGE sql STABLE
        AS $$ SELECT (pg_backend_pid() % 16)::smallint $$`);
    await q.query(`DROP SEQUENCE analytics_slots_shard_seq`);
  }
}
