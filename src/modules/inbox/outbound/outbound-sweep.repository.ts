import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';

export interface SweptMessage {
  readonly id: string;
  readonly workspaceId: string;
  readonly attempts: number;
}

/**
 * SYSTEM (cross-tenant by design): outbound messages left PENDING by a crash or a lost job — due
 * (their retry time or delivery lease passed) for at least `olderThanMs` and not re-queued by a
 * sweep in that time. Marks them re-queued (updated_at) and returns them.
 */
@Injectable()
export class OutboundSweepRepository {
  constructor(private readonly tx: TransactionHost) {}

  async takeDue(olderThanMs: number, limit: number): Promise<SweptMessage[]> {
    const rows: { id: string; workspace_id: string; delivery_attempts: number }[] = await this.tx.manager.query(
      `WITH due AS (
         UPDATE messages SET updated_at = now()
          WHERE id IN (
            SELECT id FROM messages
             WHERE delivery_status = 'PENDING' AND direction = 'OUTBOUND'
               AND coalesce(next_attempt_at, created_at) <= now() - make_interval(secs => $1::float8 / 1000)
               AND updated_at <= now() - make_interval(secs => $1::float8 / 1000)
             ORDER BY coalesce(next_attempt_at, created_at)
             LIMIT $2
             FOR UPDATE SKIP LOCKED)
          RETURNING id, workspace_id, delivery_attempts)
       SELECT id, workspace_id, delivery_attempts FROM due`,
      [olderThanMs, limit],
    );
    return rows.map((r) => ({ id: r.id, workspaceId: r.workspace_id, attempts: r.delivery_attempts }));
  }
}
