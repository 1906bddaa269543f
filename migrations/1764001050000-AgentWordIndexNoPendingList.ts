import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The agent word index without GIN's pending list (`fastupdate = off`). With the default, new and
 * changed items go to an unsorted pending list that every search reads in full until VACUUM merges
 * it: after a feed or CSV load of thousands of items each answer scanned them all (tens of ms,
 * even for a word no item has). Writes now update the index directly (a few keys per item).
 */
export class AgentWordIndexNoPendingList1764001050000 implements MigrationInterface {
  name = 'AgentWordIndexNoPendingList1764001050000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER INDEX catalog_items_agent_words_idx SET (fastupdate = off)`);
    await q.query(`SELECT gin_clean_pending_list('catalog_items_agent_words_idx'::regclass)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER INDEX catalog_items_agent_words_idx RESET (fastupdate)`);
  }
}
