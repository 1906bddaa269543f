import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { isUuid } from 'src/core/http/uuid';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { ConversationEntity } from './conversation.entity';

@Injectable()
export class ConversationsRepository extends WorkspaceScopedRepository<ConversationEntity> {
  constructor(tx: TransactionHost) {
    super(tx, ConversationEntity, 'cv', 'Conversation');
  }

  /** The contact's newest conversation on this channel that is not RESOLVED, locked for the update that follows. */
  findOpenForUpdate(channelId: string, contactId: string): Promise<ConversationEntity | null> {
    return this.scopedQuery()
      .andWhere('cv.channel_id = :channelId AND cv.contact_id = :contactId', { channelId, contactId })
      .andWhere(`cv.status <> 'RESOLVED'`)
      .orderBy('cv.created_at', 'DESC')
      .addOrderBy('cv.id', 'DESC')
      .limit(1)
      .setLock('pessimistic_write')
      .getOne();
  }

  /** A new inbound message: last message fields, and the LINE reply token when the platform gave one. */
  async recordInbound(
    id: string,
    at: Date,
    preview: string,
    replyToken: { token: string; expiresAt: Date } | null,
  ): Promise<ConversationEntity> {
    return this.updateById(id, {
      lastMessageAt: at,
      lastMessagePreview: preview,
      lastInboundAt: at,
      ...(replyToken ? { replyToken: replyToken.token, replyTokenExpiresAt: replyToken.expiresAt } : {}),
    });
  }

  /** A new outbound message; the first one stamps `firstResponseAt`. */
  async recordOutbound(id: string, at: Date, preview: string): Promise<void> {
    await this.tx.manager.query(
      `UPDATE conversations
          SET last_message_at = $3, last_message_preview = $4,
              first_response_at = coalesce(first_response_at, $3), updated_at = now()
        WHERE workspace_id = $1 AND id = $2`,
      [this.workspaceId, id, at, preview],
    );
  }

  /** SLA module: the due times of the policy that applies to this conversation (null clears them). */
  async setDueDates(id: string, firstResponseDueAt: Date | null, resolutionDueAt: Date | null): Promise<void> {
    if (!isUuid(id)) return;
    await this.tx.manager.query(
      `UPDATE conversations SET first_response_due_at = $3, resolution_due_at = $4, updated_at = now()
        WHERE workspace_id = $1 AND id = $2`,
      [this.workspaceId, id, firstResponseDueAt, resolutionDueAt],
    );
  }

  /** Takes the fresh reply token (one use) or null. */
  async claimReplyToken(id: string): Promise<string | null> {
    if (!isUuid(id)) return null;
    const rows: { token: string }[] = await this.tx.manager.query(
      `WITH old AS (
         SELECT id, reply_token FROM conversations
          WHERE workspace_id = $1 AND id = $2 AND reply_token IS NOT NULL AND reply_token_expires_at > now()
          FOR UPDATE),
       cleared AS (
         UPDATE conversations c SET reply_token = NULL, reply_token_expires_at = NULL
           FROM old WHERE c.id = old.id RETURNING old.reply_token AS token)
       SELECT token FROM cleared`,
      [this.workspaceId, id],
    );
    return rows[0]?.token ?? null;
  }

  /** Contact merge: the duplicates' conversations move to the primary contact. */
  async moveContact(fromContactIds: readonly string[], toContactId: string): Promise<void> {
    if (fromContactIds.length === 0) return;
    await this.tx.manager.query(
      `UPDATE conversations SET contact_id = $3, updated_at = now() WHERE workspace_id = $1 AND contact_id = ANY($2::uuid[])`,
      [this.workspaceId, fromContactIds, toContactId],
    );
  }
}
