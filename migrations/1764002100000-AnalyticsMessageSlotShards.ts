import type { MigrationInterface, QueryRunner } from 'typeorm';
import { AnalyticsMessageSlots1764002000000 } from './1764002000000-AnalyticsMessageSlots';

/**
 * `analytics_message_slots` without write contention: every message insert upserts its slot's
 * row, and that row stays locked until the writing transaction commits, so concurrent pipeline
 * transactions of one channel and queue would queue behind each other (and two that touch two
 * rows in opposite orders could deadlock). Each database session now writes its own row of the
 * slot (`shard = pg_backend_pid() % 16`): sessions no longer share rows, and readers sum the
 * shards (at most 16 rows per slot, channel and queue). Every change, removals included, is an
 * upsert of signed deltas into the writer's shard; a shard may hold a negative count, the sum over
 * the shards is exact.
 */
export class AnalyticsMessageSlotShards1764002100000 implements MigrationInterface {
  name = 'AnalyticsMessageSlotShards1764002100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE analytics_message_slots ADD COLUMN shard smallint NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE analytics_message_slots DROP CONSTRAINT analytics_message_slots_key`);
    await q.query(
      `ALTER TABLE analytics_message_slots ADD CONSTRAINT analytics_message_slots_key
         UNIQUE NULLS NOT DISTINCT (workspace_id, slot, channel_id, queue_id, shard)`,
    );
    await q.query(`
      CREATE FUNCTION analytics_slots_shard() RETURNS smallint LANGUAGE sql STABLE
        AS $$ SELECT (pg_backend_pid() % 16)::smallint $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION analytics_slots_add_conversation(ws uuid, conv uuid, queue uuid, factor integer) RETURNS void
        LANGUAGE sql AS $$
        INSERT INTO analytics_message_slots AS a (workspace_id, slot, channel_id, queue_id, shard, inbound, outbound, ai_replies)
        SELECT ws, analytics_slot(m.created_at), m.channel_id, queue, analytics_slots_shard(),
               factor * count(*) FILTER (WHERE m.direction = 'INBOUND'),
               factor * count(*) FILTER (WHERE m.direction = 'OUTBOUND'),
               factor * count(*) FILTER (WHERE m.sender_type = 'AI')
          FROM messages m
         WHERE m.workspace_id = ws AND m.conversation_id = conv
         GROUP BY 2, 3
         ORDER BY 2, 3
        ON CONFLICT (workspace_id, slot, channel_id, queue_id, shard) DO UPDATE
           SET inbound = a.inbound + EXCLUDED.inbound, outbound = a.outbound + EXCLUDED.outbound,
               ai_replies = a.ai_replies + EXCLUDED.ai_replies
      $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION analytics_slots_messages_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO analytics_message_slots AS a (workspace_id, slot, channel_id, queue_id, shard, inbound, outbound, ai_replies)
        SELECT n.workspace_id, analytics_slot(n.created_at), n.channel_id, c.queue_id, analytics_slots_shard(),
               count(*) FILTER (WHERE n.direction = 'INBOUND'), count(*) FILTER (WHERE n.direction = 'OUTBOUND'),
               count(*) FILTER (WHERE n.sender_type = 'AI')
          FROM analytics_new_messages n
          JOIN conversations c ON c.workspace_id = n.workspace_id AND c.id = n.conversation_id
         GROUP BY 1, 2, 3, 4
         ORDER BY 1, 2, 3, 4
        ON CONFLICT (workspace_id, slot, channel_id, queue_id, shard) DO UPDATE
           SET inbound = a.inbound + EXCLUDED.inbound, outbound = a.outbound + EXCLUDED.outbound,
               ai_replies = a.ai_replies + EXCLUDED.ai_replies;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION analytics_slots_messages_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO analytics_message_slots AS a (workspace_id, slot, channel_id, queue_id, shard, inbound, outbound, ai_replies)
        SELECT o.workspace_id, analytics_slot(o.created_at), o.channel_id, c.queue_id, analytics_slots_shard(),
               -count(*) FILTER (WHERE o.direction = 'INBOUND'), -count(*) FILTER (WHERE o.direction = 'OUTBOUND'),
               -count(*) FILTER (WHERE o.sender_type = 'AI')
          FROM analytics_old_messages o
          JOIN conversations c ON c.workspace_id = o.workspace_id AND c.id = o.conversation_id
          JOIN workspaces w ON w.id = o.workspace_id
         GROUP BY 1, 2, 3, 4
         ORDER BY 1, 2, 3, 4
        ON CONFLICT (workspace_id, slot, channel_id, queue_id, shard) DO UPDATE
           SET inbound = a.inbound + EXCLUDED.inbound, outbound = a.outbound + EXCLUDED.outbound,
               ai_replies = a.ai_replies + EXCLUDED.ai_replies;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION analytics_slots_message_updated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO analytics_message_slots AS a (workspace_id, slot, channel_id, queue_id, shard, inbound, outbound, ai_replies)
        SELECT d.workspace_id, d.slot, d.channel_id, d.queue_id, analytics_slots_shard(),
               sum(d.inbound), sum(d.outbound), sum(d.ai)
          FROM (SELECT OLD.workspace_id, analytics_slot(OLD.created_at) AS slot, OLD.channel_id,
                       (SELECT queue_id FROM conversations WHERE workspace_id = OLD.workspace_id AND id = OLD.conversation_id) AS queue_id,
                       -(OLD.direction = 'INBOUND')::int AS inbound, -(OLD.direction = 'OUTBOUND')::int AS outbound,
                       -(OLD.sender_type = 'AI')::int AS ai
                UNION ALL
                SELECT NEW.workspace_id, analytics_slot(NEW.created_at), NEW.channel_id,
                       (SELECT queue_id FROM conversations WHERE workspace_id = NEW.workspace_id AND id = NEW.conversation_id),
                       (NEW.direction = 'INBOUND')::int, (NEW.direction = 'OUTBOUND')::int, (NEW.sender_type = 'AI')::int) d
         GROUP BY 1, 2, 3, 4
         ORDER BY 1, 2, 3, 4
        ON CONFLICT (workspace_id, slot, channel_id, queue_id, shard) DO UPDATE
           SET inbound = a.inbound + EXCLUDED.inbound, outbound = a.outbound + EXCLUDED.outbound,
               ai_replies = a.ai_replies + EXCLUDED.ai_replies;
        RETURN NULL;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    // Back to the unsharded rollup: rebuilt from the messages with the previous migration's
    // table, functions and triggers.
    const unsharded = new AnalyticsMessageSlots1764002000000();
    await unsharded.down(q);
    await q.query(`DROP FUNCTION IF EXISTS analytics_slots_shard()`);
    await unsharded.up(q);
  }
}
