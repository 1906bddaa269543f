import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { ChannelReplyTokenEntity } from './channel-reply-token.entity';

/** Reply tokens of adapters that use them (`usesReplyToken`): the newest per (connection, customer), used once. */
@Injectable()
export class ChannelReplyTokensRepository extends WorkspaceScopedRepository<ChannelReplyTokenEntity> {
  constructor(tx: TransactionHost) {
    super(tx, ChannelReplyTokenEntity, 'rt', 'Reply token');
  }

  /** Keeps the token of the customer's newest inbound event (replacing an older one). */
  async keep(channelId: string, recipientId: string, token: string, expiresAt: Date): Promise<void> {
    await this.query(
      `INSERT INTO channel_reply_tokens (workspace_id, channel_id, recipient_id, token, expires_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (workspace_id, channel_id, recipient_id)
       DO UPDATE SET token = EXCLUDED.token, expires_at = EXCLUDED.expires_at, updated_at = now()`,
      [channelId, recipientId, token, expiresAt],
    );
  }

  /** Takes the fresh token (one use) or null; an expired one is dropped too. */
  async claim(channelId: string, recipientId: string): Promise<string | null> {
    // A CTE: TypeORM answers a bare DELETE … RETURNING with [rows, count].
    const rows: { token: string; fresh: boolean }[] = await this.query(
      `WITH taken AS (
         DELETE FROM channel_reply_tokens
          WHERE workspace_id = $1 AND channel_id = $2 AND recipient_id = $3
          RETURNING token, expires_at)
       SELECT token, expires_at > now() AS fresh FROM taken`,
      [channelId, recipientId],
    );
    const row = rows[0];
    return row && row.fresh ? row.token : null;
  }
}
