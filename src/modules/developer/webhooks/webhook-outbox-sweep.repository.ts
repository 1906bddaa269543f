import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';

/**
 * SYSTEM (cross-tenant by design): the webhook recovery sweep looks at every workspace's outbox
 * and deliveries for work a crash or a lost job left behind, and prunes old relayed events. It
 * returns ids only; relaying and delivering run per workspace in jobs.
 */
@Injectable()
export class WebhookOutboxSweepRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** Workspaces with outbox rows not relayed for at least `olderThanMs`. */
  async workspacesWithUnrelayed(olderThanMs: number, limit: number): Promise<string[]> {
    const rows: { workspace_id: string }[] = await this.tx.manager.query(
      `SELECT DISTINCT workspace_id FROM (
         SELECT workspace_id FROM event_outbox
          WHERE relayed_at IS NULL AND created_at <= now() - make_interval(secs => $1::float8 / 1000)
          ORDER BY created_at LIMIT $2) pending`,
      [olderThanMs, limit],
    );
    return rows.map((r) => r.workspace_id);
  }

  /** Webhooks with PENDING attempts due for at least `olderThanMs` and not in flight. */
  async webhooksWithDue(olderThanMs: number, limit: number): Promise<{ webhookId: string; workspaceId: string }[]> {
    const rows: { webhook_id: string; workspace_id: string }[] = await this.tx.manager.query(
      `SELECT DISTINCT webhook_id, workspace_id FROM (
         SELECT webhook_id, workspace_id FROM webhook_deliveries
          WHERE status = 'PENDING' AND next_attempt_at <= now() - make_interval(secs => $1::float8 / 1000)
            AND (locked_until IS NULL OR locked_until < now())
          ORDER BY next_attempt_at LIMIT $2) due`,
      [olderThanMs, limit],
    );
    return rows.map((r) => ({ webhookId: r.webhook_id, workspaceId: r.workspace_id }));
  }

  /** Deletes relayed events older than `days` (their delivery log goes with them); returns how many. */
  async prune(days: number, limit: number): Promise<number> {
    const rows: unknown[] = await this.tx.manager.query(
      `WITH gone AS (
         DELETE FROM event_outbox WHERE id IN (
           SELECT id FROM event_outbox
            WHERE relayed_at IS NOT NULL AND relayed_at < now() - make_interval(days => $1)
            LIMIT $2)
         RETURNING id)
       SELECT id FROM gone`,
      [days, limit],
    );
    return rows.length;
  }
}
