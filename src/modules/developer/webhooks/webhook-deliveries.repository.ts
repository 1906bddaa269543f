import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { type CursorPaginationQuery, type Page, findKeysetPage, newestFirst } from 'src/core/http/pagination';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import type { DeliveryStatus } from './webhook-delivery.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import type { WebhookEntity } from './webhook.entity';

/** How long a claimed attempt may run before another worker may take it again (crash recovery). */
const ATTEMPT_LEASE_SECONDS = 60;
/** Attempts in flight per webhook: a slow receiver holds at most this many workers. */
export const MAX_IN_FLIGHT_PER_WEBHOOK = 4;

export interface OutboxEvent {
  readonly id: string;
  readonly type: string;
  readonly workspaceId: string;
  readonly createdAt: string;
  readonly data: unknown;
}

export interface AttemptResult {
  readonly status: Exclude<DeliveryStatus, 'PENDING'>;
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  readonly responseExcerpt: string | null;
  readonly nextAttemptAt: Date | null;
}

/** What an attempt needs of its webhook (read with the claim). */
export type WebhookTarget = Pick<
  WebhookEntity,
  'id' | 'url' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt' | 'active' | 'disabledAt'
>;

/** One claimed attempt and the event it sends (null when the event is no longer stored). */
export interface ClaimedAttempt {
  readonly delivery: WebhookDeliveryEntity;
  readonly event: OutboxEvent | null;
}

export interface ClaimedBatch {
  readonly attempts: readonly ClaimedAttempt[];
  /** The webhook, read with the claim; null when it was deleted or nothing was claimed. */
  readonly webhook: WebhookTarget | null;
  /** Nothing was claimed because the webhook's attempts in flight are at the limit, and some are due. */
  readonly waiting: boolean;
}

/** A successful attempt's outcome. */
export interface AttemptSuccess {
  readonly id: string;
  readonly statusCode: number;
  readonly durationMs: number;
  readonly responseExcerpt: string | null;
}

@Injectable()
export class WebhookDeliveriesRepository extends WorkspaceScopedRepository<WebhookDeliveryEntity> {
  constructor(private readonly txHost: TransactionHost) {
    super(txHost, WebhookDeliveryEntity, 'd', 'Delivery');
  }

  findPage(
    webhookId: string,
    query: CursorPaginationQuery & { status?: DeliveryStatus; eventType?: string },
  ): Promise<Page<WebhookDeliveryEntity>> {
    const qb = this.scopedQuery().andWhere('d.webhook_id = :webhookId', { webhookId });
    if (query.status) qb.andWhere('d.status = :status', { status: query.status });
    if (query.eventType) qb.andWhere('d.event_type = :eventType', { eventType: query.eventType });
    return findKeysetPage(qb, query, newestFirst<WebhookDeliveryEntity>('d'));
  }

  /**
   * The relay: up to `limit` unrelayed outbox rows of this workspace (locked, others skip them)
   * become one PENDING delivery per matching active webhook — one statement. A row some webhook
   * takes is marked relayed (its deliveries read it; pruned after the retention); a row no webhook
   * takes, and no delivery refers to, is deleted (nothing will ever read it: a delete writes no index
   * entries, where marking it rewrote the row into the outbox's five indexes). `webhook.test` is
   * never fanned out (it goes to one webhook, from `/test`) and never deleted here.
   */
  async relay(limit: number): Promise<{ relayed: number; webhookIds: string[] }> {
    const rows = await this.query<{ relayed: string | number; webhook_ids: string[] | null }[]>(
      `WITH ev AS (
         SELECT e.id, e.type FROM event_outbox e
          WHERE e.workspace_id = $1 AND e.relayed_at IS NULL
          ORDER BY e.created_at
          LIMIT $2
          FOR UPDATE SKIP LOCKED),
       targets AS (
         SELECT ev.id AS event_id, ev.type, w.id AS webhook_id
           FROM ev JOIN webhooks w
             ON w.workspace_id = $1 AND w.active AND w.disabled_at IS NULL AND ev.type = ANY (w.events)
          WHERE ev.type <> 'webhook.test'),
       kept AS (
         SELECT ev.id FROM ev
          WHERE ev.type = 'webhook.test'
             OR EXISTS (SELECT 1 FROM targets t WHERE t.event_id = ev.id)
             OR EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.workspace_id = $1 AND d.event_id = ev.id)),
       mark AS (
         UPDATE event_outbox o SET relayed_at = now() FROM kept WHERE o.workspace_id = $1 AND o.id = kept.id RETURNING o.id),
       gone AS (
         DELETE FROM event_outbox o USING ev
          WHERE o.workspace_id = $1 AND o.id = ev.id AND NOT EXISTS (SELECT 1 FROM kept WHERE kept.id = ev.id)
         RETURNING o.id),
       ins AS (
         INSERT INTO webhook_deliveries (workspace_id, webhook_id, event_id, event_type, next_attempt_at)
         SELECT $1, t.webhook_id, t.event_id, t.type, now() FROM targets t
         RETURNING webhook_id)
       SELECT (SELECT count(*) FROM mark) + (SELECT count(*) FROM gone) AS relayed,
              (SELECT array_agg(DISTINCT webhook_id) FROM ins) AS webhook_ids`,
      [limit],
    );
    const row = rows[0];
    return { relayed: Number(row?.relayed ?? 0), webhookIds: row?.webhook_ids ?? [] };
  }

  /** An event written by the API itself (the `/test` ping): stored already relayed. */
  async insertRelayedEvent(type: string, data: unknown): Promise<OutboxEvent> {
    const rows = await this.query<{ id: string; created_at: Date }[]>(
      `INSERT INTO event_outbox (workspace_id, type, data, relayed_at) VALUES ($1, $2, $3::jsonb, now())
       RETURNING id, created_at`,
      [type, JSON.stringify(data)],
    );
    const row = rows[0]!;
    return {
      id: row.id,
      type,
      workspaceId: this.workspaceId,
      createdAt: new Date(row.created_at).toISOString(),
      data,
    };
  }

  /**
   * Claims up to `limit` of a webhook's oldest due PENDING attempts for sending, fewer when some of
   * its attempts are in flight already (at most `limit` in flight per webhook, so a slow receiver
   * holds one job, not every worker). Each claim is a lease (`locked_until`; a crashed attempt is
   * taken again when it ends) under FOR UPDATE SKIP LOCKED, so an attempt runs once across workers.
   * The attempts' events and the webhook are read in the same statement.
   */
  async claimBatch(webhookId: string, limit: number): Promise<ClaimedBatch> {
    const rows = await this.query<Record<string, unknown>[]>(
      `WITH busy AS (
         SELECT count(*)::int AS n FROM webhook_deliveries b
          WHERE b.workspace_id = $1 AND b.webhook_id = $2 AND b.status = 'PENDING'
            AND b.locked_until IS NOT NULL AND b.locked_until > now()),
       target AS (
         SELECT d.id FROM webhook_deliveries d
          WHERE d.workspace_id = $1 AND d.webhook_id = $2 AND d.status = 'PENDING'
            AND d.next_attempt_at <= now() + interval '500 milliseconds'
            AND (d.locked_until IS NULL OR d.locked_until < now())
          ORDER BY d.next_attempt_at
          LIMIT greatest(0, $4 - (SELECT n FROM busy))
          FOR UPDATE SKIP LOCKED),
       claimed AS (
         UPDATE webhook_deliveries d SET locked_until = now() + make_interval(secs => $3)
           FROM target
          WHERE d.workspace_id = $1 AND d.id = target.id
         RETURNING d.*)
       SELECT c.*,
              (SELECT n FROM busy) >= $4 AND EXISTS (
                SELECT 1 FROM webhook_deliveries d
                 WHERE d.workspace_id = $1 AND d.webhook_id = $2 AND d.status = 'PENDING'
                   AND d.next_attempt_at <= now() + interval '500 milliseconds'
                   AND (d.locked_until IS NULL OR d.locked_until < now())) AS waiting,
              e.id AS ev_id, e.type AS ev_type, e.created_at AS ev_created_at, e.data AS ev_data,
              w.id AS wh_id, w.url AS wh_url, w.secret AS wh_secret, w.previous_secret AS wh_previous_secret,
              w.previous_secret_expires_at AS wh_previous_secret_expires_at, w.active AS wh_active,
              w.disabled_at AS wh_disabled_at
         FROM (SELECT 1) one
         LEFT JOIN claimed c ON true
         LEFT JOIN event_outbox e ON e.workspace_id = $1 AND e.id = c.event_id
         LEFT JOIN webhooks w ON w.workspace_id = $1 AND w.id = c.webhook_id
        ORDER BY c.next_attempt_at`,
      [webhookId, ATTEMPT_LEASE_SECONDS, limit],
    );
    const claimed = rows.filter((row) => row.id);
    if (claimed.length === 0) {
      return { attempts: [], webhook: null, waiting: rows[0]?.waiting === true };
    }
    const first = claimed[0]!;
    return {
      attempts: claimed.map((row) => ({
        delivery: this.fromRaw(row),
        event: row.ev_id
          ? {
              id: String(row.ev_id),
              type: String(row.ev_type),
              workspaceId: this.workspaceId,
              createdAt: new Date(row.ev_created_at as string | Date).toISOString(),
              data: row.ev_data,
            }
          : null,
      })),
      webhook: first.wh_id
        ? {
            id: String(first.wh_id),
            url: String(first.wh_url),
            secret: String(first.wh_secret),
            previousSecret: (first.wh_previous_secret as string | null) ?? null,
            previousSecretExpiresAt: first.wh_previous_secret_expires_at
              ? new Date(first.wh_previous_secret_expires_at as string | Date)
              : null,
            active: Boolean(first.wh_active),
            disabledAt: first.wh_disabled_at ? new Date(first.wh_disabled_at as string | Date) : null,
          }
        : null,
      waiting: false,
    };
  }

  /** Stores the outcome of a claimed attempt. */
  async finish(id: string, result: AttemptResult): Promise<void> {
    await this.query(
      `UPDATE webhook_deliveries
          SET status = $3, status_code = $4, duration_ms = $5, error = $6, response_excerpt = $7,
              next_attempt_at = $8, locked_until = NULL
        WHERE workspace_id = $1 AND id = $2`,
      [
        id,
        result.status,
        result.statusCode,
        result.durationMs,
        result.error,
        result.responseExcerpt,
        result.nextAttemptAt,
      ],
    );
  }

  /**
   * A batch's successful attempts, in one statement (no transaction around two): the outcomes
   * stored and the webhook's failure streak ended (written only when there was one, so concurrent
   * successes do not queue on the webhook's row). It commits without waiting for the WAL flush: a
   * database crash may take the outcomes back, and those attempts are sent again when their lease
   * ends (at least once, with the same `webhook-id`), where a flush per batch cost every other
   * commit a wait.
   */
  async finishSucceeded(webhookId: string, results: readonly AttemptSuccess[]): Promise<void> {
    if (results.length === 0) return;
    await this.query(
      `WITH streak AS (
         UPDATE webhooks SET failure_count = 0 WHERE workspace_id = $1 AND id = $2 AND failure_count <> 0),
       outcome AS (
         SELECT * FROM unnest($3::uuid[], $4::int[], $5::int[], $6::text[]) AS o(id, status_code, duration_ms, excerpt))
       UPDATE webhook_deliveries d
          SET status = 'SUCCEEDED', status_code = o.status_code, duration_ms = o.duration_ms, error = NULL,
              response_excerpt = o.excerpt, next_attempt_at = NULL, locked_until = NULL
         FROM outcome o
        WHERE d.workspace_id = $1 AND d.id = o.id AND ${this.txHost.asyncCommitCondition('statement')}`,
      [
        webhookId,
        results.map((r) => r.id),
        results.map((r) => r.statusCode),
        results.map((r) => r.durationMs),
        results.map((r) => r.responseExcerpt),
      ],
    );
  }

  /** A new PENDING attempt of an event for a webhook (a retry, or a redelivery with attempt 1). */
  async schedule(
    webhookId: string,
    eventId: string,
    eventType: string,
    attempt: number,
    at: Date | null,
    options: { lockedSeconds?: number } = {},
  ): Promise<WebhookDeliveryEntity> {
    const rows = await this.query<Record<string, unknown>[]>(
      `INSERT INTO webhook_deliveries (workspace_id, webhook_id, event_id, event_type, attempt, next_attempt_at, locked_until)
       VALUES ($1, $2, $3, $4, $5, coalesce($6::timestamptz, now()),
               CASE WHEN $7::int IS NULL THEN NULL ELSE now() + make_interval(secs => $7::int) END)
       RETURNING *`,
      [webhookId, eventId, eventType, attempt, at, options.lockedSeconds ?? null],
    );
    return this.fromRaw(rows[0]!);
  }
}
