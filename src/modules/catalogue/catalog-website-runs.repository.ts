import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { type CursorPaginationQuery, type Page, findKeysetPage, newestFirst } from 'src/core/http/pagination';
import { isUuid } from 'src/core/http/uuid';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { CatalogWebsiteRunEntity, type WebsiteRunStatus, type WebsiteRunTrigger } from './catalog-website-run.entity';

/** A run in flight longer than this is presumed dead (its worker crashed) and may be replaced. */
export const STALE_RUN_MINUTES = 30;

export interface RunOutcome {
  readonly status: Exclude<WebsiteRunStatus, 'RUNNING'>;
  readonly pages: number;
  readonly fetched: number;
  readonly created: number;
  readonly updated: number;
  readonly offSale: number;
  readonly restored: number;
  readonly unchanged: number;
  readonly message: string;
}

@Injectable()
export class CatalogWebsiteRunsRepository extends WorkspaceScopedRepository<CatalogWebsiteRunEntity> {
  constructor(tx: TransactionHost) {
    super(tx, CatalogWebsiteRunEntity, 'r', 'Sync run');
  }

  findPage(websiteId: string, query: CursorPaginationQuery): Promise<Page<CatalogWebsiteRunEntity>> {
    return findKeysetPage(
      this.scopedQuery().andWhere('r.website_id = :websiteId', { websiteId }),
      query,
      newestFirst<CatalogWebsiteRunEntity>('r'),
    );
  }

  /**
   * Starts a run unless one is already in flight for the website (one at a time, across instances:
   * a partial unique index on RUNNING). A run stuck longer than STALE_RUN_MINUTES is closed first.
   * Null when another run is in flight.
   */
  async start(
    websiteId: string,
    trigger: WebsiteRunTrigger,
    confirmOffSale: boolean,
  ): Promise<CatalogWebsiteRunEntity | null> {
    await this.query(
      `UPDATE catalog_website_runs SET status = 'FAILED', finished_at = now(),
         message = 'Interrupted: the run did not finish within ${STALE_RUN_MINUTES} minutes'
       WHERE workspace_id = $1 AND website_id = $2 AND status = 'RUNNING' AND started_at < now() - interval '${STALE_RUN_MINUTES} minutes'`,
      [websiteId],
    );
    const rows = await this.queryRows<Record<string, unknown>>(
      `INSERT INTO catalog_website_runs (workspace_id, website_id, trigger, status, confirm_off_sale)
       VALUES ($1, $2, $3, 'RUNNING', $4)
       ON CONFLICT (website_id) WHERE status = 'RUNNING' DO NOTHING
       RETURNING *`,
      [websiteId, trigger, confirmOffSale],
    );
    const row = rows[0];
    return row ? this.fromRaw(row) : null;
  }

  /** Takes a run for execution exactly once (a redelivered job finds it taken). */
  async pick(id: string): Promise<CatalogWebsiteRunEntity | null> {
    if (!isUuid(id)) return null;
    const rows = await this.queryRows<Record<string, unknown>>(
      `UPDATE catalog_website_runs SET picked_at = now()
       WHERE workspace_id = $1 AND id = $2 AND status = 'RUNNING' AND picked_at IS NULL
       RETURNING *`,
      [id],
    );
    const row = rows[0];
    return row ? this.fromRaw(row) : null;
  }

  async finish(id: string, outcome: RunOutcome): Promise<void> {
    await this.query(
      `UPDATE catalog_website_runs SET status = $3, finished_at = clock_timestamp(), pages = $4, fetched = $5, created = $6, updated = $7,
         off_sale = $8, restored = $9, unchanged = $10, message = $11
       WHERE workspace_id = $1 AND id = $2 AND status = 'RUNNING'`,
      [
        id,
        outcome.status,
        outcome.pages,
        outcome.fetched,
        outcome.created,
        outcome.updated,
        outcome.offSale,
        outcome.restored,
        outcome.unchanged,
        outcome.message,
      ],
    );
  }
}
