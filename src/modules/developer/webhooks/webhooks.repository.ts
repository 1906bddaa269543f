import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { type CursorPaginationQuery, type Page, findKeysetPage, newestFirst } from 'src/core/http/pagination';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { WebhookEntity } from './webhook.entity';

/** Disable after this many consecutive failed attempts (DESIGN §10). */
export const WEBHOOK_MAX_CONSECUTIVE_FAILURES = 50;

@Injectable()
export class WebhooksRepository extends WorkspaceScopedRepository<WebhookEntity> {
  constructor(tx: TransactionHost) {
    super(tx, WebhookEntity, 'w', 'Webhook');
  }

  findPage(query: CursorPaginationQuery): Promise<Page<WebhookEntity>> {
    return findKeysetPage(this.scopedQuery(), query, newestFirst<WebhookEntity>('w'));
  }

  /**
   * A failed attempt: one more in the streak; `gone` (410) or the 50th failure in a row disables the
   * webhook (inactive, `disabledAt` stamped). Returns whether it is disabled now.
   */
  async recordFailure(id: string, gone: boolean): Promise<boolean> {
    const rows = await this.query<{ disabled: boolean }[]>(
      `WITH changed AS (
         UPDATE webhooks
            SET failure_count = failure_count + 1,
                active = CASE WHEN $3 OR failure_count + 1 >= $4 THEN false ELSE active END,
                disabled_at = CASE WHEN ($3 OR failure_count + 1 >= $4) AND disabled_at IS NULL THEN now() ELSE disabled_at END,
                updated_at = now()
          WHERE workspace_id = $1 AND id = $2
          RETURNING disabled_at IS NOT NULL AS disabled)
       SELECT disabled FROM changed`,
      [id, gone, WEBHOOK_MAX_CONSECUTIVE_FAILURES],
    );
    return rows[0]?.disabled ?? true;
  }
}
