import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 9: a signed webhook event whose payload holds U+0000 (which text and jsonb cannot hold) is
 * stored sanitised, and the request's raw bytes are kept here so nothing the platform sent is lost.
 */
export class InboundEventRawBody1763909000000 implements MigrationInterface {
  name = 'InboundEventRawBody1763909000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE inbound_events ADD COLUMN raw_body bytea`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE inbound_events DROP COLUMN raw_body`);
  }
}
