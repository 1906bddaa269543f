import { Injectable } from '@nestjs/common';
import { type DueRow, type RetryRows, takeDueRows } from 'src/core/database/sql';
import { TransactionHost } from 'src/core/database/transaction-host';

export type SweptMessage = DueRow;

const OUTBOUND_RETRY_ROWS: RetryRows = {
  table: 'messages',
  waiting: `delivery_status = 'PENDING' AND direction = 'OUTBOUND'`,
  since: 'created_at',
  attempts: 'delivery_attempts',
};

/**
 * SYSTEM (cross-tenant by design): outbound messages left PENDING by a crash or a lost job — due
 * (their retry time or delivery lease passed) for at least `olderThanMs` and not re-queued by a
 * sweep in that time. Marks them re-queued (updated_at) and returns them.
 */
@Injectable()
export class OutboundSweepRepository {
  constructor(private readonly tx: TransactionHost) {}

  takeDue(olderThanMs: number, limit: number): Promise<SweptMessage[]> {
    return takeDueRows(this.tx.manager, OUTBOUND_RETRY_ROWS, olderThanMs, limit);
  }
}
