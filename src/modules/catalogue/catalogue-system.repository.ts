import { Injectable } from '@nestjs/common';
import { DatabaseRuntime } from 'src/core/database/database-runtime';
import { TransactionHost } from 'src/core/database/transaction-host';
import { queryRows } from 'src/core/database/sql';

/**
 * The GIN pending list of the catalogue's trigram search index during a CSV import's batches
 * (PostgreSQL's default is 4 MB). New entries are appended to the list unsorted and merged into the
 * index in bulk when it outgrows the limit, so a larger list means fewer, larger merges; searches
 * read the list in full until it is merged, which the import does once at its end. PostgreSQL only:
 * PGlite's merge costs what its inserts save (measured: no gain, or a few per cent more CPU).
 * docs/performance.md "Session 20: catalogue write path".
 */
const IMPORT_PENDING_LIST_LIMIT = '16MB';

export interface DueWebsite {
  readonly id: string;
  readonly workspaceId: string;
}

/**
 * SYSTEM (cross-tenant by design): the catalogue's timers. Claims the website connections of every
 * workspace whose sync is due, and deletes expired CSV import sessions of every workspace. Each
 * claimed sync then runs inside its own workspace's context (runAsWorkspace). Also the search
 * index's bulk mode for imports: the index is one for every workspace.
 */
@Injectable()
export class CatalogueSystemRepository {
  constructor(
    private readonly tx: TransactionHost,
    private readonly runtime: DatabaseRuntime,
  ) {}

  /**
   * Due connections, at most `limit`, moved to their next slot in the same statement. `FOR UPDATE
   * SKIP LOCKED`: several workers ticking at once each claim different rows, so a sync runs once.
   */
  async claimDueWebsites(limit: number): Promise<DueWebsite[]> {
    const rows = await queryRows<{ id: string; workspace_id: string }>(
      this.tx.manager,
      `WITH due AS (
         SELECT id FROM catalog_websites
         WHERE status = 'ACTIVE' AND next_sync_at <= now()
         ORDER BY next_sync_at
         LIMIT $1
         FOR UPDATE SKIP LOCKED
       )
       UPDATE catalog_websites w
       SET next_sync_at = now() + make_interval(mins => w.interval_minutes)
       FROM due WHERE w.id = due.id
       RETURNING w.id, w.workspace_id`,
      [limit],
    );
    return rows.map((r) => ({ id: r.id, workspaceId: r.workspace_id }));
  }

  /** Import sessions past their expiry (their files can be large). Returns how many were deleted. */
  async deleteExpiredImports(): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      this.tx.manager,
      `DELETE FROM catalog_imports WHERE expires_at < now() RETURNING id`,
      [],
    );
    return rows.length;
  }

  /**
   * For the rest of the current transaction, the trigram search index keeps this session's new
   * entries in a pending list of up to IMPORT_PENDING_LIST_LIMIT (the index has no limit of its own,
   * so the session's setting applies). Call inside the import batch's transaction. Nothing to do on
   * the embedded engine (the index keeps PostgreSQL's default 4 MB there).
   */
  async deferSearchIndexing(): Promise<void> {
    if (this.runtime.engine === 'embedded') return;
    await queryRows(this.tx.manager, `SELECT set_config('gin_pending_list_limit', $1, true)`, [
      IMPORT_PENDING_LIST_LIMIT,
    ]);
  }

  /**
   * Merges the trigram search index's pending list into the index in one bulk pass. Searches right
   * after an import do not read it entry by entry; the embedded engine has no autovacuum to do it.
   */
  async mergeSearchIndexPendingList(): Promise<void> {
    await queryRows(this.tx.manager, `SELECT gin_clean_pending_list('catalog_items_search_trgm_idx'::regclass)`, []);
  }
}
