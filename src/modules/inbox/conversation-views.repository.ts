import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { type CursorPaginationQuery, type Page, findKeysetPage, newestFirst } from 'src/core/http/pagination';
import { isUuid } from 'src/core/http/uuid';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { ConversationViewEntity } from './conversation-view.entity';

/** Saved views. `viewer`: the calling user (null for an API token, which sees shared views only). */
@Injectable()
export class ConversationViewsRepository extends WorkspaceScopedRepository<ConversationViewEntity> {
  constructor(tx: TransactionHost) {
    super(tx, ConversationViewEntity, 'v', 'View');
  }

  /** Shared views and the viewer's own, newest first. */
  findVisiblePage(viewer: string | null, query: CursorPaginationQuery): Promise<Page<ConversationViewEntity>> {
    const qb = this.scopedQuery();
    if (viewer) qb.andWhere('(v.shared OR v.created_by = :viewer)', { viewer });
    else qb.andWhere('v.shared');
    return findKeysetPage(qb, query, newestFirst<ConversationViewEntity>('v'));
  }

  /** One view the viewer may see, or null (unknown, another workspace's, or someone else's personal view). */
  async findVisible(viewer: string | null, id: string): Promise<ConversationViewEntity | null> {
    if (!isUuid(id)) return null;
    const qb = this.scopedQuery().andWhere('v.id = :id', { id });
    if (viewer) qb.andWhere('(v.shared OR v.created_by = :viewer)', { viewer });
    else qb.andWhere('v.shared');
    return qb.getOne();
  }
}
