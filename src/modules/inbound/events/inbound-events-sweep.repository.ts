import { Injectable } from '@nestjs/common';
import { type DueRow, type RetryRows, takeDueRows } from 'src/core/database/sql';
import { TransactionHost } from 'src/core/database/transaction-host';

export type SweptEvent = DueRow;

const INBOUND_RETRY_ROWS: RetryRows = {
  table: 'inbound_events',
  waiting: `status = 'RECEIVED'`,
  since: 'received_at',
  attempts: 'attempts',
};

/**
 * SYSTEM (cross-tenant by design): the recovery sweep looks at every workspace's inbound events for
 * ones a crash or a lost job left behind. It only changes status bookkeeping and returns ids; the
 * processing itself runs per workspace in the job. (Statements are wrapped in `WITH … SELECT` so the
 * driver returns plain rows.)
 */
@Injectable()
export class InboundEventsSweepRepository {
  constructor(private readonly tx: TransactionHost) {}

  /**
   * PROCESSING for longer than `olderThanMs` means the process died mid-way: the attempt counts as
   * failed; the event goes back to RECEIVED, or to FAILED once `maxAttempts` are used.
   */
  async releaseStuckProcessing(olderThanMs: number, maxAttempts: number): Promise<number> {
    const rows: unknown[] = await this.tx.manager.query(
      `WITH released AS (
         UPDATE inbound_events
            SET status = CASE WHEN attempts >= $2 THEN 'FAILED' ELSE 'RECEIVED' END,
                error = coalesce(error, 'interrupted while processing'),
                next_attempt_at = NULL,
                updated_at = now() - make_interval(secs => $1::float8 / 1000)
          WHERE status = 'PROCESSING' AND processing_started_at <= now() - make_interval(secs => $1::float8 / 1000)
          RETURNING id)
       SELECT id FROM released`,
      [olderThanMs, maxAttempts],
    );
    return rows.length;
  }

  /**
   * RECEIVED events due (never tried, or their retry time passed) for at least `olderThanMs`, and
   * not re-queued by a sweep in that time either. Marks them re-queued (updated_at) and returns them.
   */
  takeDue(olderThanMs: number, limit: number): Promise<SweptEvent[]> {
    return takeDueRows(this.tx.manager, INBOUND_RETRY_ROWS, olderThanMs, limit);
  }
}
