import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { type CursorPaginationQuery, type Page, findKeysetPage } from 'src/core/http/pagination';
import { isUuid } from 'src/core/http/uuid';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { InboundEventEntity, type InboundEventOutcome, type InboundEventStatus } from './inbound-event.entity';

/** Every column the entity reads (`raw_body` is not read back: it is kept for the record only). */
const EVENT_COLUMNS = `e.id, e.seq, e.workspace_id, e.channel_id, e.channel_type, e.sender_key, e.external_id, e.payload,
  e.status, e.attempts, e.error, e.outcome, e.message_id, e.next_attempt_at, e.received_at, e.processing_started_at,
  e.processed_at, e.updated_at`;

@Injectable()
export class InboundEventsRepository extends WorkspaceScopedRepository<InboundEventEntity> {
  constructor(private readonly txHost: TransactionHost) {
    super(txHost, InboundEventEntity, 'e', 'Event');
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

  /**
   * RECEIVED → PROCESSING for events of this workspace, counting the attempt; returns those claimed
   * (the others are someone else's or done). One statement for a whole group (InboundEventBatcher).
   *
   * Its own transaction (run outside the events', so the attempt counts even when that transaction
   * dies with the process), committed without waiting for the WAL flush (`synchronous_commit` off
   * for this statement's transaction only): the count guards against an event that kills the
   * worker every time; losing it in a database crash only costs one more attempt, and the event
   * itself is still RECEIVED or PROCESSING, which the recovery sweep re-runs. Saves one WAL flush per
   * event (issue 16 item 3).
   */
  async claimMany(ids: readonly string[]): Promise<InboundEventEntity[]> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) return [];
    const rows: Record<string, unknown>[] = await this.queryRows(
      `UPDATE inbound_events e
       SET status = 'PROCESSING', attempts = e.attempts + 1, processing_started_at = now(), next_attempt_at = NULL,
           updated_at = now()
       WHERE e.id = ANY($2::uuid[]) AND e.workspace_id = $1 AND e.status = 'RECEIVED'
         AND ${this.txHost.asyncCommitCondition('statement')}
       RETURNING ${EVENT_COLUMNS}`,
      [valid],
    );
    return rows.map((raw) => this.fromRaw(raw));
  }

  /**
   * Takes the sender's lock, then returns the sender's oldest unprocessed event up to `seq`, locked —
   * one statement (one round trip per event, issue 16 item 3). The lock serialises the processing of
   * one sender's events on one channel until the transaction ends (arrival order, and one
   * conversation per contact even with many workers). Events waiting for a retry (`next_attempt_at`
   * in the future) do not hold the others back.
   *
   * The advisory lock is an InitPlan evaluated before the scan (the plan's one-time filter). The
   * statement's snapshot predates the wait, but every row it returns is locked `FOR UPDATE`, and
   * PostgreSQL re-checks a row that a previous holder changed against its committed version (READ
   * COMMITTED): an event the previous holder processed is skipped, the next one is returned.
   * The key names the workspace too (`inbound:<workspace>:<channel>:<sender>`): $1 is always bound.
   */
  async lockSenderAndFindNext(channelId: string, senderKey: string, seq: string): Promise<InboundEventEntity | null> {
    const rows: Record<string, unknown>[] = await this.query(
      `SELECT ${EVENT_COLUMNS} FROM inbound_events e
       WHERE EXISTS (SELECT pg_advisory_xact_lock(hashtextextended(concat_ws(':', 'inbound', $1::text, $2::text), 0)))
         AND e.workspace_id = $1::uuid AND e.channel_id = $3 AND e.sender_key = $4 AND e.seq <= $5
         AND e.status IN ('RECEIVED', 'PROCESSING') AND (e.next_attempt_at IS NULL OR e.next_attempt_at <= now())
       ORDER BY e.seq LIMIT 1
       FOR UPDATE OF e`,
      [`${channelId}:${senderKey}`, channelId, senderKey, seq],
    );
    const raw = rows[0];
    return raw ? this.fromRaw(raw) : null;
  }

  /**
   * Group processing (InboundEventBatcher): takes the advisory locks of several senders — the same
   * keys as `lockSenderAndFindNext` — in ONE fixed order (ascending key hash, evaluated after the sort:
   * PostgreSQL computes volatile output columns above the Sort), so two transactions locking
   * overlapping sets of senders cannot deadlock on them; then returns, locked `FOR UPDATE` and in
   * arrival order, every unprocessed event of those senders up to each one's `maxSeq` (the same
   * filter as `lockSenderAndFindNext`). The caller compares them with the events it holds: a sender
   * with an older unprocessed event it does not hold must go one event at a time.
   *
   * The events are read sender by sender (a LATERAL subquery: one scan of the sender index per
   * sender), whatever the table's statistics say. As a plain join, a table without statistics (no
   * ANALYZE yet, e.g. autovacuum off) got a plan that read every unprocessed event of the workspace
   * and filtered them against the senders: O(backlog) per group, 15 ms for 8 senders with 1,900
   * events waiting against 0.06 ms (docs/performance.md, "Session 28"). The locks are the same rows'.
   */
  async lockSendersAndFindPending(
    senders: readonly { channelId: string; senderKey: string; maxSeq: string }[],
  ): Promise<InboundEventEntity[]> {
    if (senders.length === 0) return [];
    const rows: Record<string, unknown>[] = await this.query(
      `SELECT e.* FROM unnest($2::uuid[], $3::text[], $4::bigint[]) AS s(channel_id, sender_key, max_seq)
       CROSS JOIN LATERAL (
         SELECT ${EVENT_COLUMNS} FROM inbound_events e
          WHERE e.workspace_id = $1::uuid AND e.channel_id = s.channel_id AND e.sender_key = s.sender_key
            AND e.seq <= s.max_seq
            AND e.status IN ('RECEIVED', 'PROCESSING') AND (e.next_attempt_at IS NULL OR e.next_attempt_at <= now())
          FOR UPDATE OF e) e
       WHERE (SELECT count(*) FROM (
                SELECT pg_advisory_xact_lock(k.key) AS locked
                  FROM (SELECT DISTINCT hashtextextended(concat_ws(':', 'inbound', $1::text, u.channel_id::text || ':' || u.sender_key), 0) AS key
                          FROM unnest($2::uuid[], $3::text[]) AS u(channel_id, sender_key)) k
                 ORDER BY k.key) l) > 0
       ORDER BY e.seq`,
      [senders.map((s) => s.channelId), senders.map((s) => s.senderKey), senders.map((s) => s.maxSeq)],
    );
    return rows.map((raw) => this.fromRaw(raw));
  }

  /** Re-reads one event with a row lock (inside the processing transaction). */
  findForUpdate(id: string): Promise<InboundEventEntity | null> {
    return this.scopedQuery().andWhere('e.id = :id', { id }).setLock('pessimistic_write').getOne();
  }

  /**
   * Once per event, the last statement of the event's transaction: plain SQL (no query building on
   * the pipeline's hot path).
   *
   * On PostgreSQL it also makes that transaction commit without waiting for the WAL flush
   * (`synchronous_commit` off until the transaction ends; read at COMMIT, so setting it in the last
   * statement covers everything the transaction wrote, at no extra round trip). The acks' INSERTs
   * then stop queuing behind a flush per pipeline commit (issue 16, docs/decisions.md session 22).
   * Safe because the event itself was stored by a synchronous commit: a database crash loses at
   * most a suffix of these transactions, whose events are still RECEIVED / PROCESSING and are run
   * again by the recovery sweep; and nothing derived from them leaves the database before a
   * synchronous commit or `TransactionHost.ensureDurable` has flushed them.
   */
  async markProcessed(id: string, outcome: InboundEventOutcome, messageId: string | null): Promise<void> {
    await this.markProcessedMany([{ id, outcome, messageId }]);
  }

  /** `markProcessed` for every event of a group processed in one transaction: one statement. */
  async markProcessedMany(
    events: readonly { id: string; outcome: InboundEventOutcome; messageId: string | null }[],
  ): Promise<void> {
    if (events.length === 0) return;
    await this.query(
      `UPDATE inbound_events e
       SET status = 'PROCESSED', outcome = u.outcome, message_id = u.message_id, error = NULL, next_attempt_at = NULL,
           processed_at = now(), updated_at = now()
       FROM unnest($2::uuid[], $3::text[], $4::uuid[]) AS u(id, outcome, message_id)
       WHERE e.id = u.id AND e.workspace_id = $1
         AND ${this.txHost.asyncCommitCondition('transaction')}`,
      [events.map((e) => e.id), events.map((e) => e.outcome), events.map((e) => e.messageId)],
    );
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
