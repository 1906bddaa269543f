import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The GIN indexes that `GET /conversations?search=` and `GET /contacts?search=&tag=` read. */
const INDEXES = [
  'messages_text_trgm_idx',
  'conversations_subject_trgm_idx',
  'contacts_name_trgm_idx',
  'contacts_email_trgm_idx',
  'contacts_phone_trgm_idx',
  'contacts_phone_digits_trgm_idx',
  'contacts_tags_idx',
];

/**
 * List search (issue 16 item 4): the search GIN indexes get a small pending list (64 kB instead of
 * the default 4 MB), as the agent word index did (migration 1764001050000). New rows go to an
 * unsorted pending list that every search reads in full until it is merged (VACUUM — the embedded
 * engine has no autovacuum — or when it outgrows the limit). Measured at 100,000 contacts /
 * 1,000,000 messages: the pending lists held 344–367 pages each (every contact, every conversation
 * subject — NULL included — after a bulk load), and a contact search for a term that matches
 * nothing spent 10.5 ms of backend CPU reading them (0.5 ms merged); the planner also priced the
 * indexes by those pages and walked the table instead. At 64 kB a search reads at most 8 pending
 * pages; single-row inserts into messages cost the same CPU (0.363 vs 0.377 ms per insert).
 * The existing pending lists are merged now.
 */
export class SearchIndexPendingLists1764004100000 implements MigrationInterface {
  name = 'SearchIndexPendingLists1764004100000';

  async up(q: QueryRunner): Promise<void> {
    for (const index of INDEXES) {
      await q.query(`ALTER INDEX ${index} SET (fastupdate = on, gin_pending_list_limit = 64)`);
      await q.query(`SELECT gin_clean_pending_list('${index}'::regclass)`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const index of INDEXES) await q.query(`ALTER INDEX ${index} RESET (fastupdate, gin_pending_list_limit)`);
  }
}
