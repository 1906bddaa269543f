import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { queryRows } from 'src/core/database/sql';

export interface DueWebsite {
  readonly id: string;
  readonly workspaceId: string;
}

/**
 * SYSTEM (cross-tenant by design): the catalogue's timers. Claims the website connections of every
 * workspace whose sync is due, and deletes expired CSV import sessions of every workspace. Each
 * claimed sync then runs inside its own workspace's context (runAsWorkspace).
 */
@Injectable()
export class CatalogueSystemRepository {
  constructor(private readonly tx: TransactionHost) {}

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
}
