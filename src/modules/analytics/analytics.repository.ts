import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { getTenantContext } from 'src/core/tenancy/tenant-context';
import type { AnalyticsWindow } from './dto/analytics-query.dto';
import { SqlParams } from './sql-params.util';

/** Figures arrive from SQL as numbers (`::int`, `::float8`) or null. */
type Row = Record<string, number | string | Date | null>;

const UNIT = { HOUR: 'hour', DAY: 'day', WEEK: 'week' } as const;

/** The rollup's slot (`analytics_slot()` in migration 1764002000000). */
const MESSAGE_SLOT_MS = 15 * 60_000;

/**
 * The analytics read model: every figure of `GET /analytics/*` computed in SQL from the stored
 * facts of other modules' tables (conversations, messages, tickets, conversation_slas,
 * presence_intervals, csat_responses, ai_conversation_states), read only, always under the
 * caller's workspace (`workspace_id = $1` from the tenant context, fail closed).
 *
 * Buckets: each statement runs in a transaction whose `TimeZone` is the workspace's, so
 * `date_trunc(unit, ts)` and `generate_series(…, '1 day')` over timestamptz are calendar buckets of
 * that zone (a DST day has 23 or 25 hours), and every bucket of the window is present (zeros).
 * Large row sets (conversations) are not converted to local time row by row: each bucket's bounds
 * are computed once in the zone and the rows counted by an index range per bucket (`bucketBounds`);
 * only small sets (rollup slots, edge messages, handoffs) go through `date_trunc`.
 */
@Injectable()
export class AnalyticsRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get workspaceId(): string {
    return getTenantContext().workspaceId;
  }

  /**
   * Runs `fn` in a read transaction whose session timezone is the workspace's. JIT is off for it:
   * the bucket joins' row estimates (generate_series guesses 1,000 rows) push the plans over
   * `jit_above_cost`, and compiling them cost 0.1–1.7 s per request for queries that run in tens of
   * milliseconds (measured with auto_explain at 100k conversations / 1M messages).
   */
  async inWorkspaceZone<T>(fn: () => Promise<T>): Promise<T> {
    return this.tx.run(async () => {
      await this.tx.manager.query(
        `SELECT set_config('TimeZone', (SELECT timezone FROM workspaces WHERE id = $1), true), set_config('jit', 'off', true)`,
        [this.workspaceId],
      );
      return fn();
    });
  }

  private query<T = Row>(sql: string, params: SqlParams): Promise<T[]> {
    return this.tx.manager.query(sql, params.values);
  }

  /** `AND …` restricting conversations `c` to the window's channel / queue. */
  private static conversationFilter(p: SqlParams, w: AnalyticsWindow, alias = 'c'): string {
    return (
      (w.channelId ? ` AND ${alias}.channel_id = ${p.add(w.channelId)}::uuid` : '') +
      (w.queueId ? ` AND ${alias}.queue_id = ${p.add(w.queueId)}::uuid` : '')
    );
  }

  /** `AND …` restricting rows that carry `conversation_id` to conversations of the channel / queue. */
  private static viaConversation(p: SqlParams, w: AnalyticsWindow, alias: string): string {
    if (!w.channelId && !w.queueId) return '';
    return ` AND EXISTS (SELECT 1 FROM conversations c WHERE c.workspace_id = ${alias}.workspace_id
                          AND c.id = ${alias}.conversation_id${AnalyticsRepository.conversationFilter(p, w)})`;
  }

  /** Messages carry their channel: only the queue filter needs the conversation. */
  private static messageFilter(p: SqlParams, w: AnalyticsWindow, alias = 'm'): string {
    return (
      (w.channelId ? ` AND ${alias}.channel_id = ${p.add(w.channelId)}::uuid` : '') +
      AnalyticsRepository.viaConversation(p, { ...w, channelId: null }, alias)
    );
  }

  /** Tickets: queue by the ticket's own queue, channel by its conversation's channel. */
  private static ticketFilter(p: SqlParams, w: AnalyticsWindow): string {
    return (
      (w.queueId ? ` AND t.queue_id = ${p.add(w.queueId)}::uuid` : '') +
      (w.channelId
        ? ` AND EXISTS (SELECT 1 FROM conversations c WHERE c.workspace_id = t.workspace_id AND c.id = t.conversation_id
                         AND c.channel_id = ${p.add(w.channelId)}::uuid)`
        : '')
    );
  }

  /** The bucket starts of the window: `generate_series` over timestamptz in the session (workspace) zone. */
  private static buckets(from: string, to: string, unit: string): string {
    return `SELECT g AS bucket FROM generate_series(date_trunc(${unit}, ${from}::timestamptz),
                                                  ${to}::timestamptz - interval '1 millisecond',
                                                  ('1 ' || ${unit})::interval) g`;
  }

  /**
   * The buckets of the window with their bounds clipped to it: `bucket` (start, as `buckets()`),
   * `lo = greatest(bucket, from)`, `hi = least(next bucket start, to)`; consecutive buckets' bounds
   * meet, so they partition `[from, to)` exactly. The next start is `bucket + 1 unit` in the session
   * (workspace) zone: the series' own step, so a DST day ends where the next one begins.
   */
  private static bucketBounds(from: string, to: string, unit: string): string {
    return `SELECT g AS bucket, greatest(g, ${from}::timestamptz) AS lo,
                   least(g + ('1 ' || ${unit})::interval, ${to}::timestamptz) AS hi
              FROM generate_series(date_trunc(${unit}, ${from}::timestamptz),
                                   ${to}::timestamptz - interval '1 millisecond',
                                   ('1 ' || ${unit})::interval) g`;
  }

  /**
   * Message counts of the window as rows `(at, channel_id, inbound, outbound, ai)`: whole 15-minute
   * slots of `[from, to)` from the rollup `analytics_message_slots` (migration 1764002000000; at most
   * 96 rows a day per channel and queue), the partial slots at both edges from `messages` (one row
   * per message, at most 15 minutes of traffic each). A slot lies inside one local HOUR/DAY/WEEK
   * bucket of any zone (offsets are multiples of 15 minutes), so `date_trunc(unit, at)` buckets
   * the rows exactly. Filters: channel on both, queue by the conversation's current queue.
   */
  private static messageCounts(p: SqlParams, ws: string, w: AnalyticsWindow): string {
    const from = w.from.getTime();
    const to = w.to.getTime();
    const lo = Math.min(Math.ceil(from / MESSAGE_SLOT_MS) * MESSAGE_SLOT_MS, to);
    const hi = Math.max(Math.floor(to / MESSAGE_SLOT_MS) * MESSAGE_SLOT_MS, lo);
    const loP = p.add(new Date(lo));
    const hiP = p.add(new Date(hi));
    const fromP = p.add(w.from);
    const toP = p.add(w.to);
    const sf =
      (w.channelId ? ` AND s.channel_id = ${p.add(w.channelId)}::uuid` : '') +
      (w.queueId ? ` AND s.queue_id = ${p.add(w.queueId)}::uuid` : '');
    const edge = (a: string, b: string): string =>
      `SELECT m.created_at AS at, m.channel_id, (m.direction = 'INBOUND')::int AS inbound,
              (m.direction = 'OUTBOUND')::int AS outbound, (m.sender_type = 'AI')::int AS ai
         FROM messages m
        WHERE m.workspace_id = ${ws} AND m.created_at >= ${a} AND m.created_at < ${b}${AnalyticsRepository.messageFilter(p, w)}`;
    return `SELECT s.slot AS at, s.channel_id, s.inbound, s.outbound, s.ai_replies AS ai
         FROM analytics_message_slots s
        WHERE s.workspace_id = ${ws} AND s.slot >= ${loP} AND s.slot < ${hiP}${sf}
       UNION ALL ${edge(fromP, loP)}
       UNION ALL ${edge(hiP, toP)}`;
  }

  async summary(w: AnalyticsWindow): Promise<Row> {
    const p = new SqlParams();
    const ws = p.add(this.workspaceId);
    const from = p.add(w.from);
    const to = p.add(w.to);
    const cf = AnalyticsRepository.conversationFilter(p, w);
    const mc = AnalyticsRepository.messageCounts(p, ws, w);
    const rf = AnalyticsRepository.viaConversation(p, w, 'r');
    const tf = AnalyticsRepository.ticketFilter(p, w);
    const sql = `
WITH conv AS (
  -- one pass over the conversations created before the window's end (index-only on
  -- conversations_analytics_created_idx). Durations are summed and ordered as intervals (exact, no
  -- numeric per row): sum / count is the exact average, percentile_cont over intervals the exact median.
  SELECT count(*) FILTER (WHERE c.resolved_at IS NULL OR c.resolved_at >= ${from})::int AS total,
         count(*) FILTER (WHERE c.created_at >= ${from})::int AS new,
         count(*) FILTER (WHERE c.resolved_at IS NULL OR c.resolved_at >= ${to})::int AS open,
         round(extract(epoch FROM sum(c.first_response_at - c.created_at) FILTER (WHERE c.created_at >= ${from}))
               / count(c.first_response_at) FILTER (WHERE c.created_at >= ${from}), 3)::float8 AS fr_avg,
         round(extract(epoch FROM percentile_cont(0.5) WITHIN GROUP (ORDER BY c.first_response_at - c.created_at)
               FILTER (WHERE c.created_at >= ${from} AND c.first_response_at IS NOT NULL)), 3)::float8 AS fr_median,
         -- resolved in the window ⇒ created before its end: the same scan
         count(*) FILTER (WHERE c.resolved_at >= ${from} AND c.resolved_at < ${to})::int AS resolved,
         round(extract(epoch FROM sum(c.resolved_at - c.created_at) FILTER (WHERE c.resolved_at >= ${from} AND c.resolved_at < ${to}))
               / count(*) FILTER (WHERE c.resolved_at >= ${from} AND c.resolved_at < ${to}), 3)::float8 AS res_avg,
         -- SLA targets of the conversations created in the window, from the due times the SLA module
         -- writes onto the conversation with its conversation_slas record (same transaction; migration
         -- 1764003200000 re-copies them): no join with conversation_slas
         count(*) FILTER (WHERE c.created_at >= ${from} AND coalesce(c.first_response_at, c.resolved_at) <= c.first_response_due_at)
       + count(*) FILTER (WHERE c.created_at >= ${from} AND c.resolved_at <= c.resolution_due_at) AS sla_met,
         count(*) FILTER (WHERE c.created_at >= ${from}
                            AND (coalesce(c.first_response_at, c.resolved_at) > c.first_response_due_at
                                 OR (coalesce(c.first_response_at, c.resolved_at) IS NULL AND c.first_response_due_at < now())))
       + count(*) FILTER (WHERE c.created_at >= ${from}
                            AND (c.resolved_at > c.resolution_due_at
                                 OR (c.resolved_at IS NULL AND c.resolution_due_at < now()))) AS sla_breached
    FROM conversations c
   WHERE c.workspace_id = ${ws} AND c.created_at < ${to}${cf}
), msg AS (
  SELECT coalesce(sum(x.inbound), 0)::int AS inbound, coalesce(sum(x.outbound), 0)::int AS outbound
    FROM (${mc}) x
), csat AS (
  SELECT round(avg(r.score), 2)::float8 AS average, count(*)::int AS responses
    FROM csat_responses r
   WHERE r.workspace_id = ${ws} AND r.created_at >= ${from} AND r.created_at < ${to}${rf}
), tk AS (
  SELECT count(*) FILTER (WHERE t.created_at >= ${from})::int AS created,
         count(*) FILTER (WHERE t.resolved_at IS NULL OR t.resolved_at >= ${to})::int AS open
    FROM tickets t
   WHERE t.workspace_id = ${ws} AND t.created_at < ${to}${tf}
), tr AS (
  SELECT count(*)::int AS resolved
    FROM tickets t
   WHERE t.workspace_id = ${ws} AND t.resolved_at >= ${from} AND t.resolved_at < ${to}${tf}
)
SELECT conv.total, conv.new, conv.open, conv.resolved, msg.inbound, msg.outbound, conv.fr_avg, conv.fr_median,
       conv.res_avg, csat.average AS csat_average, csat.responses AS csat_responses,
       CASE WHEN conv.sla_met + conv.sla_breached > 0
            THEN round(conv.sla_met::numeric / (conv.sla_met + conv.sla_breached), 4)::float8 END AS sla_rate,
       tk.created AS tickets_created, tr.resolved AS tickets_resolved, tk.open AS tickets_open
  FROM conv, msg, csat, tk, tr`;
    return (await this.query(sql, p))[0]!;
  }

  /**
   * `GET /analytics/inbox` in one statement: rows of kind `series` (bucket, conversations, inbound,
   * outbound, resolved; every bucket of the window) and of kind `channel` (channel_type,
   * conversations, inbound; by conversations, inbound desc, then type).
   *
   * Conversations are counted per bucket by an index range of the bucket's own bounds
   * (`[greatest(bucket, from), least(next bucket, to))`, computed once per bucket in the workspace
   * zone): the rows are only counted (created: by channel type as well, which gives the by-channel
   * figure from the same pass), never converted to local time one by one. The message rows of the
   * window (rollup + edges) are read once for both the series and the by-channel inbound.
   */
  async inbox(w: AnalyticsWindow): Promise<Row[]> {
    const p = new SqlParams();
    const ws = p.add(this.workspaceId);
    const from = p.add(w.from);
    const to = p.add(w.to);
    const unit = p.add(UNIT[w.interval]);
    const cf = AnalyticsRepository.conversationFilter(p, w);
    const mc = AnalyticsRepository.messageCounts(p, ws, w);
    const sql = `
WITH b AS MATERIALIZED (${AnalyticsRepository.bucketBounds(from, to, unit)}),
created AS (
  SELECT b.bucket, k.channel_type, k.n
    FROM b CROSS JOIN LATERAL (
      SELECT c.channel_type, count(*)::int AS n FROM conversations c
       WHERE c.workspace_id = ${ws} AND c.created_at >= b.lo AND c.created_at < b.hi${cf}
       GROUP BY 1) k
), x AS MATERIALIZED (${mc}),
msg AS (
  SELECT date_trunc(${unit}, x.at) AS bucket, sum(x.inbound)::int AS inbound, sum(x.outbound)::int AS outbound
    FROM x GROUP BY 1
), inb AS (
  -- inbound messages by their channel's type (the channel the message came through)
  SELECT ch.type AS channel_type, sum(x.inbound)::int AS n
    FROM x JOIN channel_connections ch ON ch.workspace_id = ${ws} AND ch.id = x.channel_id
   GROUP BY 1 HAVING sum(x.inbound) > 0
), bytype AS (
  SELECT created.channel_type, sum(created.n)::int AS n FROM created GROUP BY 1
), bybucket AS (
  SELECT created.bucket, sum(created.n)::int AS n FROM created GROUP BY 1
)
SELECT 'series' AS kind, b.bucket, NULL AS channel_type, coalesce(bybucket.n, 0) AS conversations,
       coalesce(msg.inbound, 0) AS inbound, coalesce(msg.outbound, 0) AS outbound,
       (SELECT count(*) FROM conversations c
         WHERE c.workspace_id = ${ws} AND c.resolved_at >= b.lo AND c.resolved_at < b.hi${cf})::int AS resolved
  FROM b LEFT JOIN bybucket USING (bucket) LEFT JOIN msg USING (bucket)
UNION ALL
SELECT 'channel', NULL, coalesce(bytype.channel_type, inb.channel_type), coalesce(bytype.n, 0), coalesce(inb.n, 0), NULL, NULL
  FROM bytype FULL JOIN inb ON inb.channel_type = bytype.channel_type
 ORDER BY 1 DESC, 2, 4 DESC, 5 DESC, 3`;
    return this.query(sql, p);
  }

  async ticketSeries(w: AnalyticsWindow): Promise<Row[]> {
    const p = new SqlParams();
    const ws = p.add(this.workspaceId);
    const from = p.add(w.from);
    const to = p.add(w.to);
    const unit = p.add(UNIT[w.interval]);
    const tf = AnalyticsRepository.ticketFilter(p, w);
    const sql = `
WITH b AS (${AnalyticsRepository.buckets(from, to, unit)}),
cr AS (
  SELECT date_trunc(${unit}, t.created_at) AS bucket, count(*)::int AS n FROM tickets t
   WHERE t.workspace_id = ${ws} AND t.created_at >= ${from} AND t.created_at < ${to}${tf} GROUP BY 1
), rs AS (
  SELECT date_trunc(${unit}, t.resolved_at) AS bucket, count(*)::int AS n FROM tickets t
   WHERE t.workspace_id = ${ws} AND t.resolved_at >= ${from} AND t.resolved_at < ${to}${tf} GROUP BY 1
)
SELECT b.bucket, coalesce(cr.n, 0) AS created, coalesce(rs.n, 0) AS resolved
  FROM b LEFT JOIN cr USING (bucket) LEFT JOIN rs USING (bucket)
 ORDER BY b.bucket`;
    return this.query(sql, p);
  }

  /** Tickets created in the window, counted by current status and by priority. */
  async ticketBreakdown(w: AnalyticsWindow): Promise<{ dimension: string; value: string; n: number }[]> {
    const p = new SqlParams();
    const ws = p.add(this.workspaceId);
    const from = p.add(w.from);
    const to = p.add(w.to);
    const tf = AnalyticsRepository.ticketFilter(p, w);
    const sql = `
SELECT CASE WHEN GROUPING(t.status) = 0 THEN 'status' ELSE 'priority' END AS dimension,
       coalesce(t.status, t.priority) AS value, count(*)::int AS n
  FROM tickets t
 WHERE t.workspace_id = ${ws} AND t.created_at >= ${from} AND t.created_at < ${to}${tf}
 GROUP BY GROUPING SETS ((t.status), (t.priority))`;
    return this.query(sql, p);
  }

  async workforce(w: AnalyticsWindow): Promise<Row[]> {
    const p = new SqlParams();
    const ws = p.add(this.workspaceId);
    const from = p.add(w.from);
    const to = p.add(w.to);
    const cf = AnalyticsRepository.conversationFilter(p, w);
    const members = w.queueId
      ? ` AND EXISTS (SELECT 1 FROM queue_members qm WHERE qm.workspace_id = ms.workspace_id
                         AND qm.user_id = ms.user_id AND qm.queue_id = ${p.add(w.queueId)}::uuid)`
      : '';
    const sql = `
WITH online AS (
  SELECT pi.user_id,
         sum(extract(epoch FROM greatest(least(coalesce(pi.ended_at, now()), ${to}::timestamptz)
                                         - greatest(pi.started_at, ${from}::timestamptz), interval '0'))) AS secs
    FROM presence_intervals pi
   WHERE pi.workspace_id = ${ws} AND pi.status = 'ONLINE' AND pi.started_at < ${to}
     AND (pi.ended_at IS NULL OR pi.ended_at > ${from})
   GROUP BY 1
), per_agent AS (
  -- one pass over the conversations touching the window (assigned, created or resolved in it)
  SELECT c.assignee_id AS user_id,
         count(*) FILTER (WHERE c.assigned_at >= ${from} AND c.assigned_at < ${to})::int AS assigned,
         count(*) FILTER (WHERE c.resolved_at >= ${from} AND c.resolved_at < ${to})::int AS resolved,
         round(avg(extract(epoch FROM c.first_response_at - c.created_at))
               FILTER (WHERE c.created_at >= ${from} AND c.created_at < ${to} AND c.first_response_at IS NOT NULL), 3)::float8 AS fr_secs
    FROM conversations c
   WHERE c.workspace_id = ${ws} AND c.assignee_id IS NOT NULL${cf}
     AND ((c.assigned_at >= ${from} AND c.assigned_at < ${to}) OR (c.resolved_at >= ${from} AND c.resolved_at < ${to})
          OR (c.created_at >= ${from} AND c.created_at < ${to}))
   GROUP BY 1
), open_now AS (
  SELECT c.assignee_id AS user_id, count(*)::int AS n FROM conversations c
   WHERE c.workspace_id = ${ws} AND c.status IN ('OPEN', 'ON_HOLD') AND c.assignee_id IS NOT NULL${cf}
   GROUP BY 1
)
SELECT ms.user_id, u.name, coalesce(st.presence, 'OFFLINE') AS presence,
       round(coalesce(online.secs, 0), 3)::float8 AS online_seconds,
       coalesce(pa.assigned, 0) AS assigned, coalesce(pa.resolved, 0) AS resolved,
       pa.fr_secs AS average_first_response_seconds, coalesce(open_now.n, 0) AS open_now
  FROM memberships ms
  JOIN users u ON u.id = ms.user_id
  LEFT JOIN agent_status st ON st.workspace_id = ms.workspace_id AND st.user_id = ms.user_id
  LEFT JOIN online ON online.user_id = ms.user_id
  LEFT JOIN per_agent pa ON pa.user_id = ms.user_id
  LEFT JOIN open_now ON open_now.user_id = ms.user_id
 WHERE ms.workspace_id = ${ws}${members}
 ORDER BY u.name, ms.user_id`;
    return this.query(sql, p);
  }

  /**
   * `GET /analytics/ai` in one statement: one row of kind `totals` (replies, handoffs,
   * conversations_with_ai, resolved_without_human, rate) and the rows of kind `series` (bucket,
   * s_replies, s_handoffs; every bucket of the window). The message rows of the window (rollup +
   * edges) are read once for the total and the series.
   *
   * "ai": the conversations with an AI reply, one ordered index-only pass over
   * messages_sender_conversation_idx (no sort), read by both "conversations with AI in the window"
   * (reply in the window, message channel filter, queue by the conversation) and "resolved with AI"
   * (a reply at any time, conversation filters). "Resolved with AI" joins that set (hashed once)
   * to the conversations resolved in the window (index-only on conversations_analytics_resolved_idx,
   * no probe of the conversation heap per AI conversation); handed-off conversations are merged in
   * id order, the human-reply probe runs only for the rest.
   */
  async ai(w: AnalyticsWindow): Promise<Row[]> {
    const p = new SqlParams();
    const ws = p.add(this.workspaceId);
    const from = p.add(w.from);
    const to = p.add(w.to);
    const unit = p.add(UNIT[w.interval]);
    const inWindow =
      `m.created_at >= ${from} AND m.created_at < ${to}` +
      (w.channelId ? ` AND m.channel_id = ${p.add(w.channelId)}::uuid` : '');
    const aq = AnalyticsRepository.viaConversation(p, { ...w, channelId: null }, 'ai');
    const sf = AnalyticsRepository.viaConversation(p, w, 's');
    const cf = AnalyticsRepository.conversationFilter(p, w);
    const mc = AnalyticsRepository.messageCounts(p, ws, w);
    const sql = `
WITH b AS MATERIALIZED (${AnalyticsRepository.bucketBounds(from, to, unit)}),
x AS MATERIALIZED (${mc}),
r AS (
  SELECT date_trunc(${unit}, x.at) AS bucket, sum(x.ai)::int AS n FROM x GROUP BY 1
), h AS MATERIALIZED (
  SELECT s.handed_off_at FROM ai_conversation_states s
   WHERE s.workspace_id = ${ws} AND s.handed_off_at >= ${from} AND s.handed_off_at < ${to}${sf}
), hb AS (
  SELECT date_trunc(${unit}, h.handed_off_at) AS bucket, count(*)::int AS n FROM h GROUP BY 1
), ai AS MATERIALIZED (
  SELECT m.workspace_id, m.conversation_id, bool_or(${inWindow}) AS in_window
    FROM messages m
   WHERE m.workspace_id = ${ws} AND m.sender_type = 'AI'
   GROUP BY 1, 2
), ai_conversations AS (
  SELECT count(*)::int AS conversations FROM ai WHERE ai.in_window${aq}
), resolved AS (
  -- The conversations resolved in the window, read bucket by bucket (an index range of
  -- conversations_analytics_resolved_idx each, index-only: never the whole table), joined to a hash
  -- of the AI conversations built once (OFFSET 0 keeps the join inside the range scan; flattened,
  -- the planner probed the conversations' primary key once per AI conversation). No hashed
  -- subplan (\`IN\` as an expression): past work_mem that becomes a scan of the AI set per row.
  -- Those with AI, in conversation order: handed off by a merge with the handoffs, and the
  -- human-reply probes in index order (neighbouring probes share pages).
  SELECT count(*)::int AS with_ai,
         count(*) FILTER (
           WHERE ho.conversation_id IS NULL
             AND NOT EXISTS (SELECT 1 FROM messages hm WHERE hm.workspace_id = ra.workspace_id
                               AND hm.conversation_id = ra.id AND hm.sender_type = 'AGENT')
         )::int AS without_human
    FROM (SELECT r.workspace_id, r.id
            FROM b CROSS JOIN LATERAL (
                   SELECT c.workspace_id, c.id
                     FROM conversations c
                    WHERE c.workspace_id = ${ws} AND c.resolved_at >= b.lo AND c.resolved_at < b.hi${cf}
                      AND c.id IN (SELECT ai.conversation_id FROM ai)
                   OFFSET 0) r
           ORDER BY r.id) ra
    LEFT JOIN ai_conversation_states ho ON ho.workspace_id = ra.workspace_id AND ho.conversation_id = ra.id
                                       AND ho.handed_off_at IS NOT NULL
)
SELECT 'totals' AS kind, NULL::timestamptz AS bucket, (SELECT coalesce(sum(x.ai), 0) FROM x)::int AS replies,
       (SELECT count(*) FROM h)::int AS handoffs, ai_conversations.conversations AS conversations_with_ai,
       resolved.without_human AS resolved_without_human,
       CASE WHEN resolved.with_ai > 0 THEN round(resolved.without_human::numeric / resolved.with_ai, 4)::float8 END AS rate,
       NULL::int AS s_replies, NULL::int AS s_handoffs
  FROM ai_conversations, resolved
UNION ALL
SELECT 'series', b.bucket, NULL, NULL, NULL, NULL, NULL, coalesce(r.n, 0), coalesce(hb.n, 0)
  FROM b LEFT JOIN r USING (bucket) LEFT JOIN hb USING (bucket)
 ORDER BY 1 DESC, 2`;
    return this.query(sql, p);
  }
}
