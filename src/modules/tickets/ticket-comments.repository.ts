import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { TicketCommentEntity } from './ticket-comment.entity';

@Injectable()
export class TicketCommentsRepository extends WorkspaceScopedRepository<TicketCommentEntity> {
  constructor(tx: TransactionHost) {
    super(tx, TicketCommentEntity, 'tc', 'Comment');
  }

  /** The ticket's first `limit` comments, oldest first. */
  findForTicket(ticketId: string, limit: number): Promise<TicketCommentEntity[]> {
    return this.scopedQuery()
      .andWhere('tc.ticket_id = :ticketId', { ticketId })
      .orderBy('tc.created_at', 'ASC')
      .addOrderBy('tc.id', 'ASC')
      .limit(limit)
      .getMany();
  }
}
