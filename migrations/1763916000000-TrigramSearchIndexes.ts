import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Trigram GIN indexes for free-text search (issue 16, DESIGN §13 / §15: search p95 < 50 ms on both
 * engines). `search` is case-insensitive substring matching (`ILIKE '%term%'`); pg_trgm's GIN
 * operator class answers ILIKE directly, so the queries keep their meaning and the planner can use a
 * bitmap index scan instead of reading every message.
 *
 * - messages.text, conversations.subject: `GET /conversations?search=`
 * - contacts name / email / phone / digits of the phone: `GET /contacts?search=` (and the contact arm
 *   of the conversation search)
 * - catalogue items: one expression over name, SKU, description and keywords
 *   (`catalog_item_search_text`, IMMUTABLE so it can be indexed; fields joined by a newline so a
 *   term cannot match across two fields).
 */
export class TrigramSearchIndexes1763916000000 implements MigrationInterface {
  name = 'TrigramSearchIndexes1763916000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(`CREATE INDEX messages_text_trgm_idx ON messages USING gin (text gin_trgm_ops)`);
    await q.query(`CREATE INDEX conversations_subject_trgm_idx ON conversations USING gin (subject gin_trgm_ops)`);
    await q.query(`CREATE INDEX contacts_name_trgm_idx ON contacts USING gin (name gin_trgm_ops)`);
    await q.query(`CREATE INDEX contacts_email_trgm_idx ON contacts USING gin (email gin_trgm_ops)`);
    await q.query(`CREATE INDEX contacts_phone_trgm_idx ON contacts USING gin (phone gin_trgm_ops)`);
    await q.query(
      `CREATE INDEX contacts_phone_digits_trgm_idx ON contacts USING gin (ltrim(phone_normalized, '+') gin_trgm_ops)`,
    );
    await q.query(
      `CREATE OR REPLACE FUNCTION catalog_item_search_text(name text, sku text, description text, keywords text[])
         RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
         AS $$ SELECT concat_ws(E'\\n', name, sku, description, array_to_string(keywords, ' ')) $$`,
    );
    await q.query(
      `CREATE INDEX catalog_items_search_trgm_idx ON catalog_items
         USING gin (catalog_item_search_text(name, sku, description, keywords) gin_trgm_ops)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX catalog_items_search_trgm_idx`);
    await q.query(`DROP FUNCTION catalog_item_search_text(text, text, text, text[])`);
    for (const index of [
      'contacts_phone_digits_trgm_idx',
      'contacts_phone_trgm_idx',
      'contacts_email_trgm_idx',
      'contacts_name_trgm_idx',
      'conversations_subject_trgm_idx',
      'messages_text_trgm_idx',
    ])
      await q.query(`DROP INDEX ${index}`);
  }
}
