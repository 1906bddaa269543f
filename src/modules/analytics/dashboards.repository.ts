import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { type CursorPaginationQuery, findKeysetPage, newestFirst, type Page } from 'src/core/http/pagination';
import { isUuid } from 'src/core/http/uuid';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { DashboardEntity } from './dashboard.entity';

@Injectable()
export class DashboardsRepository extends WorkspaceScopedRepository<DashboardEntity> {
  constructor(tx: TransactionHost) {
    super(tx, DashboardEntity, 'd', 'Dashboard');
  }

  /** Dashboards `viewerId` may see: their own and the shared ones (a null viewer sees shared ones). */
  findVisiblePage(viewerId: string | null, query: CursorPaginationQuery): Promise<Page<DashboardEntity>> {
    const qb = this.scopedQuery().andWhere('(d.shared OR d.owner_id = :viewerId::uuid)', { viewerId });
    return findKeysetPage(qb, query, newestFirst<DashboardEntity>('d'));
  }

  findVisible(id: string, viewerId: string | null): Promise<DashboardEntity | null> {
    if (!isUuid(id)) return Promise.resolve(null);
    return this.scopedQuery()
      .andWhere('d.id = :id', { id })
      .andWhere('(d.shared OR d.owner_id = :viewerId::uuid)', { viewerId })
      .getOne();
  }
}
