import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { type CursorPaginationQuery, type Page, findKeysetPage, newestFirst } from 'src/core/http/pagination';
import { isUuid } from 'src/core/http/uuid';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { CatalogWebsiteEntity, type WebsiteStatus } from './catalog-website.entity';

@Injectable()
export class CatalogWebsitesRepository extends WorkspaceScopedRepository<CatalogWebsiteEntity> {
  constructor(tx: TransactionHost) {
    super(tx, CatalogWebsiteEntity, 'w', 'Website');
  }

  findPage(query: CursorPaginationQuery, status?: WebsiteStatus): Promise<Page<CatalogWebsiteEntity>> {
    const qb = this.scopedQuery();
    if (status) qb.andWhere('w.status = :status', { status });
    return findKeysetPage(qb, query, newestFirst<CatalogWebsiteEntity>('w'));
  }

  /** A disconnected connection to the same link: reconnecting reuses it, so its products are picked up again. */
  findDisconnectedByUrl(url: string): Promise<CatalogWebsiteEntity | null> {
    return this.scopedQuery()
      .andWhere('w.url = :url', { url })
      .andWhere(`w.status = 'DISCONNECTED'`)
      .orderBy('w.disconnected_at', 'DESC')
      .getOne();
  }

  /** Locks an active connection for a sync's write transaction (disconnected → null: the run changes nothing). */
  async lockActive(id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const rows = await this.queryRows<{ id: string }>(
      `SELECT id FROM catalog_websites WHERE workspace_id = $1 AND id = $2 AND status = 'ACTIVE' FOR UPDATE`,
      [id],
    );
    return rows.length > 0;
  }
}
