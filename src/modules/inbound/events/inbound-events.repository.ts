import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { type CursorPaginationQuery, type Page, findKeysetPage } from 'src/core/http/pagination';
import { isUuid } from 'src/core/http/uuid';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { InboundEventEntity, type InboundEventOutcome, type InboundEventStatus } from './inbound-event.entity';

@Injectable()
export class InboundEventsRepository extends WorkspaceScopedRepository<InboundEventEntity> {
  constructor(tx: TransactionHost) {
    super(tx, InboundEventEntity, 'e', 'Event');
  }

  /**
   * Stores webhook events RECEIVED in one statement and returns their ids in order. Plain SQL: this
   * is the acknowledgement's hot path.
   */
  async insertReceived(
    events: readonly {
      channelId: string;
      channelType: string;
      senderKey: string | null;
      externalId: string | null;
      payload: Record<string, unknown>;
      rawBody: Buffer | null;
    }[],
  ): Promise<string[]> {
    if (events.length === 0) return [];
    const params: unknown[] = [];
    const rows = events.map((e) => {
      params.push(e.channelId, e.channelType, e.senderKey, e.externalId, JSON.stringify(e.payload), e.rawBody);
      const n = params.length + 1; // $1 is the workspace
      return `($1, $${n - 5}, $${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}::jsonb, $${n}::bytea)`;
    });
    // The acknowledgement's own pool on PostgreSQL (ACK_POOL_SIZE): never queued behind other work.
    const inserted = await this.foregroundRows<{ id: string }>(
      `INSERT INTO inbound_events (workspace_id, channel_id, channel_type, sender_key, external_id, payload, raw_body)
       VALUES ${rows.join(', ')} RETURNING id`,
      params,
    );
    return inserted.map((r) => r.id);
  }

  /** A channel's events, newest first, optionally of one status. */
  findPage(
    channelId: string,
    status: InboundEventStatus | undefined,
    query: CursorPaginationQuery,
  ): Promise<Page<InboundEventEntity>> {
    const qb = this.scopedQuery().andWhere('e.channel_id = :channelId', { channelId });
    if (status) qb.andWhere('e.status = :status', { status });
    return findKeysetPage(qb, query, {
      sortExpression: 'e.received_at',
      idExpression: 'e.id',
      sortValue: (row) => row.receivedAt.toISOString(),
      sortCast: 'timestamptz',
    });
  }

  async findInChannel(channelId: string, id: string): Promise<InboundEventEntity | null> {
    if (!isUuid(id)) return null;
    return this.scopedQuery().andWhere('e.id = :id AND e.channel_id = :channelId', { id, channelId }).getOne();
  }

  /** RECEIVED → PROCESSING, counting the attempt. Null when someone else has it or it is done. */
  async claim(id: string): Promise<InboundEventEntity | null> {
    if (!isUuid(id)) return null;
    const result = await this.repo
      .createQueryBuilder()
      .update()
      .set({
        status: 'PROCESSING',
        attempts: () => 'attempts + 1',
        processingStartedAt: () => 'now()',
        nextAttemptAt: null,
      })
      .where(`id = :id AND workspace_id = :workspaceId AND status = 'RECEIVED'`, { id, workspaceId: this.workspaceId })
      .returning('*')
      .execute();
    const raw = (result.raw as Record<string, unknown>[])[0];
    return raw ? this.fromRaw(raw) : null;
  }

  /**
   * Serialises the processing of one sender's events on one channel until the transaction ends
   * (arrival order, and one conversation per contact even with many workers).
   */
  async lockSender(channelId: string, senderKey: string): Promise<void> {
    // The key names the workspace too (`inbound:<workspace>:<channel>:<sender>`): $1 is always bound.
    await this.query(
      `SELECT pg_advisory_xact_lock(hashtextextended(concat_ws(':', 'inbound', $1::text, $2::text), 0))`,
      [`${channelId}:${senderKey}`],
    );
  }

  /**
   * Under the sender lock: the sender's oldest unprocessed event up to `seq`, locked. Events waiting
   * for a retry (`next_attempt_at` in the future) do not hold the others back.
   */
  findSenderNext(channelId: string, senderKey: string, seq: string): Promise<InboundEventEntity | null> {
    return this.scopedQuery()
      .andWhere('e.channel_id = :channelId AND e.sender_key = :senderKey AND e.seq <= :seq', {
        channelId,
        senderKey,
        seq,
      })
      .andWhere(`e.status IN ('RECEIVED', 'PROCESSING')`)
      .andWhere('(e.next_attempt_at IS NULL OR e.next_attempt_at <= now())')
      .orderBy('e.seq', 'ASC')
      .limit(1)
      .setLock('pessimistic_write')
      .getOne();
  }

  /** Re-reads one event with a row lock (inside the processing transaction). */
  findForUpdate(id: string): Promise<InboundEventEntity | null> {
    return this.scopedQuery().andWhere('e.id = :id', { id }).setLock('pessimistic_write').getOne();
  }

  async markProcessed(id: string, outcome: InboundEventOutcome, messageId: string | null): Promise<void> {
    await this.repo
      .createQueryBuilder()
      .update()
      .set({ status: 'PROCESSED', outcome, messageId, error: null, nextAttemptAt: null, processedAt: () => 'now()' })
      .where('id = :id AND workspace_id = :workspaceId', { id, workspaceId: this.workspaceId })
      .execute();
  }

  /**
   * Records a failed attempt: an event claimed by a job already counted it; one processed as part of
   * another event's backlog is counted now. Returns the new state.
   */
  async recordFailure(
    id: string,
    error: string,
    retryDelaysSeconds: readonly number[],
  ): Promise<{ status: InboundEventStatus; attempts: number; nextAttemptAt: Date | null } | null> {
    const current = await this.findForUpdate(id);
    if (!current || current.status === 'PROCESSED' || current.status === 'FAILED') return null;
    const attempts = current.status === 'PROCESSING' ? current.attempts : current.attempts + 1;
    const exhausted = attempts > retryDelaysSeconds.length;
    const delaySeconds = retryDelaysSeconds[Math.min(attempts - 1, retryDelaysSeconds.length - 1)] ?? 0;
    const nextAttemptAt = exhausted ? null : new Date(Date.now() + delaySeconds * 1000);
    const status: InboundEventStatus = exhausted ? 'FAILED' : 'RECEIVED';
    await this.repo
      .createQueryBuilder()
      .update()
      .set({ status, attempts, error: error.slice(0, 2000), nextAttemptAt })
      .where('id = :id AND workspace_id = :workspaceId', { id, workspaceId: this.workspaceId })
      .execute();
    return { status, attempts, nextAttemptAt };
  }

  /** An admin's retry: FAILED (or stuck RECEIVED) → RECEIVED with a fresh attempt budget. Null if not allowed. */
  async resetForRetry(channelId: string, id: string): Promise<InboundEventEntity | null> {
    if (!isUuid(id)) return null;
    const result = await this.repo
      .createQueryBuilder()
      .update()
      .set({ status: 'RECEIVED', attempts: 0, nextAttemptAt: null })
      .where(
        `id = :id AND workspace_id = :workspaceId AND channel_id = :channelId AND status IN ('FAILED', 'RECEIVED')`,
        {
          id,
          workspaceId: this.workspaceId,
          channelId,
        },
      )
      .returning('*')
      .execute();
    const raw = (result.raw as Record<string, unknown>[])[0];
    return raw ? this.fromRaw(raw) : null;
  }
}
