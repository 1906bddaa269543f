import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The agent word index with a small GIN pending list (64 kB instead of the default 4 MB). New
 * and changed items go to an unsorted pending list that every search reads in full until it is
 * merged (by VACUUM — the embedded engine has no autovacuum — or when it outgrows the limit): after a
 * feed or CSV load of thousands of items each answer scanned them all (26–42 ms for a word no item
 * has, 0.1–1.3 ms merged; 10,000 items). At 64 kB a search reads at most a few hundred pending
 * entries (≈ 0.4–4 ms under load), while bulk writes stay batched: `fastupdate = off` made a
 * 50,000-row insert 30–60 % slower, this limit costs nothing measurable.
 */
export class AgentWordIndexPendingList1764001050000 implements MigrationInterface {
  name = 'AgentWordIndexPendingList1764001050000';

  async up(q: QueryRunner): Promise<void> {
    // fastupdate stated explicitly: a database that ran this migration's first version (then named
    // AgentWordIndexNoPendingList1764001050000, fastupdate = off) gets the same index as a new one.
    await q.query(`ALTER INDEX catalog_items_agent_words_idx SET (fastupdate = on, gin_pending_list_limit = 64)`);
    await q.query(`SELECT gin_clean_pending_list('catalog_items_agent_words_idx'::regclass)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER INDEX catalog_items_agent_words_idx RESET (fastupdate, gin_pending_list_limit)`);
  }
}
