/**
 * Analytics bench (DESIGN §13, issue 14), PostgreSQL only (needs DATABASE_URL): one workspace
 * (Europe/Berlin) seeded set-based in SQL (`INSERT … SELECT generate_series`, a few statements) with
 * 100,000 conversations and 1,000,000 messages over the last 30 days, plus tickets, SLA records,
 * CSAT, AI replies and handoffs, presence intervals; then
 *
 * - p95 of each `GET /analytics/*` endpoint for the 30-day window (DAY buckets; inbox also HOUR with
 *   a channel filter), sequential requests, target < 200 ms; baseline: a bare `SELECT 1` round trip
 *   from the bench to the same database, measured in the same run;
 * - `GET /reports/messages/export?format=csv` of 1,000,000 rows: rows/s (target ≥ 50,000) and the
 *   service process's resident memory growth (VmRSS from /proc/<pid>/status, sampled every 20 ms
 *   during the export; target < 50 MB);
 * - outcome checks (gated even with --short): the export's row count equals the report's row count
 *   (SQL count of the same window), the summary's message counts equal the messages in the window.
 *
 * `--short`: 5,000 conversations / 50,000 messages, an export of 100,000 rows (the extra rows are
 * messages older than the analytics window, exported with a wider window).
 */
import { readFileSync } from 'node:fs';
import type { Client } from 'pg';
import { sequential } from './lib/load';
import {
  type Json,
  adminSession,
  call,
  commonEnv,
  serviceDb,
  startService,
  stop,
  withDataDir,
  withDatabase,
} from './lib/service';
import { type BenchContext, type BenchRow, atLeast, below, round } from './lib/types';

export const name = 'analytics';

const AGENTS = 10;
const DAYS = 30;
const P95_TARGET_MS = 200;
const EXPORT_ROWS_PER_S = 50_000;
const RSS_GROWTH_MB = 50;

export interface AnalyticsBenchSize {
  readonly conversations: number;
  readonly messagesPer: number;
  /** Rows the export must hold; messages beyond conversations × messagesPer are seeded before the window. */
  readonly exportRows: number;
}

/**
 * Seeds one workspace (PostgreSQL, parameterised statements): conversations spread over the last
 * 30 days (60 % resolved, first response after 1–10 min), `messagesPer` messages each (odd inbound
 * from the contact, even outbound from an agent or, in every 7th conversation, the AI), AI states
 * (a third handed off), SLA records, CSAT for a quarter of the resolved, tickets for half, presence
 * (each agent ONLINE 8 h and AWAY 1 h a day). As the SLA module does, the SLA due times are on both the
 * conversation and its `conversation_slas` record. Extra messages for the export are dated 31–60 days ago.
 */
export async function seed(
  db: Client,
  workspaceId: string,
  channelId: string,
  agentIds: string[],
  size: AnalyticsBenchSize,
): Promise<void> {
  const { conversations, messagesPer } = size;
  const [queue] = (await db.query(`SELECT id FROM queues WHERE workspace_id = $1 AND is_default`, [workspaceId]))
    .rows as { id: string }[];
  const contacts = Math.min(20_000, conversations);
  await db.query(
    `INSERT INTO contacts (workspace_id, name) SELECT $1, 'Customer ' || i FROM generate_series(1, ${contacts}) AS i`,
    [workspaceId],
  );
  await db.query(
    `INSERT INTO conversations (workspace_id, contact_id, channel_id, channel_type, contact_external_id, status, priority,
                                queue_id, assignee_id, assigned_at, first_response_at, resolved_at, last_message_at, created_at,
                                first_response_due_at, resolution_due_at)
     SELECT $1, ct.id, $2, 'CUSTOM', 'ext-' || i,
            CASE WHEN i % 10 < 6 THEN 'RESOLVED' WHEN i % 10 < 8 THEN 'OPEN' ELSE 'ON_HOLD' END,
            (ARRAY['LOW', 'MEDIUM', 'HIGH', 'URGENT'])[1 + i % 4], $3,
            CASE WHEN i % 20 = 0 THEN NULL ELSE ($4::uuid[])[1 + abs(hashint4(i)) % ${AGENTS}] END,
            CASE WHEN i % 20 = 0 THEN NULL ELSE t END,
            t + (1 + i % 10) * interval '1 minute',
            CASE WHEN i % 10 < 6 THEN t + (i % 300) * interval '1 minute' END,
            t, t, t + interval '5 minutes', t + interval '4 hours'
       FROM generate_series(1, ${conversations}) AS i
       CROSS JOIN LATERAL (SELECT now() - interval '${DAYS} days' + (i::float8 / ${conversations}) * interval '${DAYS - 1} days' AS t) x
       JOIN (SELECT id, row_number() OVER (ORDER BY id) AS rn FROM contacts WHERE workspace_id = $1) ct ON ct.rn = 1 + i % ${contacts}`,
    [workspaceId, channelId, queue!.id, agentIds],
  );
  await db.query(
    `INSERT INTO messages (workspace_id, conversation_id, channel_id, direction, sender_type, type, text, delivery_status, created_at)
     SELECT c.workspace_id, c.id, c.channel_id,
            CASE WHEN n % 2 = 1 THEN 'INBOUND' ELSE 'OUTBOUND' END,
            CASE WHEN n % 2 = 1 THEN 'CONTACT' WHEN abs(hashtext(c.id::text)) % 7 = 0 THEN 'AI' ELSE 'AGENT' END, 'TEXT',
            'Message ' || n, CASE WHEN n % 2 = 1 THEN 'RECEIVED' ELSE 'SENT' END,
            c.created_at + n * interval '1 second'
       FROM conversations c CROSS JOIN generate_series(1, ${messagesPer}) AS n
      WHERE c.workspace_id = $1`,
    [workspaceId],
  );
  const extra = size.exportRows - conversations * messagesPer;
  if (extra > 0) {
    await db.query(
      `INSERT INTO messages (workspace_id, conversation_id, channel_id, direction, sender_type, type, text, delivery_status, created_at)
       SELECT c.workspace_id, c.id, c.channel_id, 'INBOUND', 'CONTACT', 'TEXT', 'Older message ' || n, 'RECEIVED',
              c.created_at - interval '${DAYS + 1} days' + n * interval '1 second'
         FROM (SELECT * FROM conversations WHERE workspace_id = $1 ORDER BY created_at LIMIT ${conversations}) c
         CROSS JOIN generate_series(1, ${Math.ceil(extra / conversations)}) AS n
        LIMIT ${extra}`,
      [workspaceId],
    );
  }
  await db.query(
    `INSERT INTO ai_conversation_states (workspace_id, conversation_id, status, handed_off_at)
     SELECT c.workspace_id, c.id, CASE WHEN abs(hashtext(c.id::text)) % 3 = 0 THEN 'HANDED_OFF' ELSE 'ACTIVE' END,
            CASE WHEN abs(hashtext(c.id::text)) % 3 = 0 THEN c.created_at + interval '30 seconds' END
       FROM conversations c WHERE c.workspace_id = $1 AND abs(hashtext(c.id::text)) % 7 = 0`,
    [workspaceId],
  );
  await db.query(
    // Marked as already checked: otherwise the SLA sweeper would work through 100,000 overdue
    // records (breach stamps, events) during the measurements. Analytics reads only the due times.
    `INSERT INTO conversation_slas (workspace_id, conversation_id, policy_id, policy_name, conversation_created_at,
                                    first_response_due_at, resolution_due_at, first_response_checked_at, resolution_checked_at)
     SELECT c.workspace_id, c.id, gen_random_uuid(), 'Standard', c.created_at, c.first_response_due_at,
            c.resolution_due_at, now(), now()
       FROM conversations c WHERE c.workspace_id = $1`,
    [workspaceId],
  );
  await db.query(
    `INSERT INTO csat_responses (workspace_id, conversation_id, score, created_at)
     SELECT c.workspace_id, c.id, 1 + abs(hashtext(c.id::text)) % 5, c.resolved_at + interval '1 minute'
       FROM conversations c WHERE c.workspace_id = $1 AND c.resolved_at IS NOT NULL AND abs(hashtext(c.id::text)) % 4 = 0`,
    [workspaceId],
  );
  await db.query(
    `INSERT INTO tickets (workspace_id, number, key, subject, status, priority, source, queue_id, conversation_id, created_at, resolved_at)
     SELECT c.workspace_id, row_number() OVER (ORDER BY c.created_at), 'TCK-' || row_number() OVER (ORDER BY c.created_at),
            'Ticket', CASE WHEN c.resolved_at IS NULL THEN 'OPEN' ELSE 'RESOLVED' END, c.priority, 'CONVERSATION',
            c.queue_id, c.id, c.created_at, c.resolved_at
       FROM conversations c WHERE c.workspace_id = $1 AND abs(hashtext(c.id::text)) % 2 = 0`,
    [workspaceId],
  );
  await db.query(
    `INSERT INTO presence_intervals (workspace_id, user_id, status, started_at, ended_at)
     SELECT $1, a, s.status, d + s.off, d + s.off + s.len
       FROM unnest($2::uuid[]) AS a
       CROSS JOIN generate_series(now() - interval '${DAYS} days', now() - interval '1 day', interval '1 day') AS d
       CROSS JOIN (VALUES ('ONLINE', interval '8 hours', interval '8 hours'), ('AWAY', interval '16 hours', interval '1 hour')) AS s(status, off, len)`,
    [workspaceId, agentIds],
  );
  await db.query('VACUUM ANALYZE');
}

/** Resident memory of a process in MB (Linux /proc), or null where /proc is not available. */
function rssMb(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

interface ExportResult {
  rows: number;
  bytes: number;
  seconds: number;
  firstByteMs: number;
  rssBefore: number | null;
  rssGrowth: number | null;
}

/** Streams the export to nowhere, counting lines and sampling the service's RSS. */
async function exportRun(
  base: string,
  headers: Record<string, string>,
  path: string,
  pid: number,
): Promise<ExportResult> {
  const rssBefore = rssMb(pid);
  let rssMax = rssBefore;
  const sampler = setInterval(() => {
    const now = rssMb(pid);
    if (now !== null && rssMax !== null) rssMax = Math.max(rssMax, now);
  }, 20);
  const start = performance.now();
  let firstByteMs = 0;
  let lines = 0;
  let bytes = 0;
  try {
    const res = await fetch(`${base}${path}`, { headers });
    if (!res.ok || !res.body) throw new Error(`export → ${res.status}: ${await res.text()}`);
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!firstByteMs) firstByteMs = performance.now() - start;
      bytes += value.length;
      let at = value.indexOf(10);
      while (at !== -1) {
        lines++;
        at = value.indexOf(10, at + 1);
      }
    }
  } finally {
    clearInterval(sampler);
  }
  return {
    rows: lines - 1,
    bytes,
    seconds: (performance.now() - start) / 1000,
    firstByteMs,
    rssBefore,
    rssGrowth: rssBefore !== null && rssMax !== null ? rssMax - rssBefore : null,
  };
}

export async function run(ctx: BenchContext): Promise<BenchRow[]> {
  if (!ctx.databaseUrl) {
    ctx.log('analytics: skipped (needs DATABASE_URL)');
    return [];
  }
  const size: AnalyticsBenchSize = ctx.short
    ? { conversations: 5_000, messagesPer: 10, exportRows: 100_000 }
    : { conversations: 100_000, messagesPer: 10, exportRows: 1_000_000 };
  const requests = ctx.short ? 10 : 100;
  return withDataDir((dir) =>
    withDatabase(ctx.databaseUrl!, async (url) => {
      const service = await startService({ ...commonEnv(dir), DATABASE_URL: url });
      const db = await serviceDb(service);
      try {
        return await measure(ctx, service.base, service.child.pid!, db, size, requests);
      } finally {
        await db.end();
        await stop(service.child);
      }
    }),
  );
}

async function measure(
  ctx: BenchContext,
  base: string,
  pid: number,
  db: Client,
  size: AnalyticsBenchSize,
  requests: number,
): Promise<BenchRow[]> {
  const admin = await adminSession(base);
  const h = admin.headers;
  await call(base, 'PUT', '/workspace', h, { timezone: 'Europe/Berlin' });
  const [channel] = (
    await db.query(
      `INSERT INTO channel_connections (workspace_id, type, name) VALUES ($1, 'CUSTOM', 'Bench') RETURNING id`,
      [admin.workspaceId],
    )
  ).rows as { id: string }[];
  const agentIds: string[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const member = await call(base, 'POST', '/workspace/members', h, {
      email: `agent${i}-${pid}@example.com`,
      name: `Agent ${i}`,
      role: 'AGENT',
      password: 'password-123',
    });
    agentIds.push(String(member.userId));
  }
  const messages = size.conversations * size.messagesPer;
  ctx.log(
    `analytics: seeding PG (${size.conversations} conversations, ${messages} messages, ${size.exportRows} export rows)`,
  );
  const seedStart = performance.now();
  await seed(db, admin.workspaceId, channel!.id, agentIds, size);
  const seedSeconds = Math.round((performance.now() - seedStart) / 1000);
  const sizeNote = `${size.conversations.toLocaleString('en')} conversations / ${messages.toLocaleString('en')} messages in the window (seeded in ${seedSeconds} s)`;

  const to = new Date();
  const from = new Date(to.getTime() - DAYS * 86_400_000);
  const window = `from=${from.toISOString()}&to=${to.toISOString()}`;
  const baseline = (await sequential(requests, async () => void (await db.query('SELECT 1')))).p95;
  const baselineNote = `SELECT 1 p95 ${baseline.toFixed(2)} ms`;
  const rows: BenchRow[] = [];
  const scenarios: [string, string][] = [
    ['summary', `/analytics/summary?${window}`],
    ['inbox (DAY)', `/analytics/inbox?${window}&interval=DAY`],
    ['inbox (HOUR, channelId)', `/analytics/inbox?${window}&interval=HOUR&channelId=${channel!.id}`],
    ['tickets', `/analytics/tickets?${window}&interval=DAY`],
    ['workforce', `/analytics/workforce?${window}`],
    ['ai', `/analytics/ai?${window}&interval=DAY`],
  ];
  let summary: Json = {};
  for (const [label, path] of scenarios) {
    ctx.log(`analytics: GET ${label}`);
    const r = await sequential(requests, async () => {
      const body = await call(base, 'GET', path, h);
      if (label === 'summary') summary = body;
    });
    rows.push({
      figure: `GET /analytics/${label} 30 days p95 (PG)`,
      value: round(r.p95),
      unit: 'ms',
      ...below(r.p95, P95_TARGET_MS),
      ratio: round(r.p95 / baseline, 1),
      baseline: baselineNote,
      note: `p50 ${r.p50.toFixed(1)} ms, ${r.n} sequential requests; Europe/Berlin; ${sizeNote}`,
    });
  }
  const [inWindow] = (
    await db.query(
      `SELECT count(*)::int AS n FROM messages WHERE workspace_id = $1 AND created_at >= $2 AND created_at < $3`,
      [admin.workspaceId, from, to],
    )
  ).rows as { n: number }[];
  const sm = summary.messages as { inbound: number; outbound: number } | undefined;
  const counted = sm ? sm.inbound + sm.outbound : null;
  rows.push({
    figure: 'summary messages = messages stored in the window (PG)',
    value: counted,
    unit: 'messages',
    target: `= ${inWindow!.n}`,
    pass: counted === inWindow!.n,
    correctness: true,
  });

  // The export: the messages report over a window holding exactly `exportRows` messages.
  const exportFrom = size.exportRows > messages ? new Date(from.getTime() - 2 * DAYS * 86_400_000) : from;
  const [reportCount] = (
    await db.query(
      `SELECT count(*)::int AS n FROM messages WHERE workspace_id = $1 AND created_at >= $2 AND created_at < $3`,
      [admin.workspaceId, exportFrom, to],
    )
  ).rows as { n: number }[];
  ctx.log(`analytics: export of ${reportCount!.n} rows`);
  const ex = await exportRun(
    base,
    h,
    `/reports/messages/export?format=csv&from=${exportFrom.toISOString()}&to=${to.toISOString()}`,
    pid,
  );
  const rate = ex.rows / ex.seconds;
  const exportNote = `${ex.rows.toLocaleString('en')} rows, ${(ex.bytes / 1e6).toFixed(1)} MB in ${ex.seconds.toFixed(1)} s, first byte after ${ex.firstByteMs.toFixed(0)} ms`;
  rows.push(
    {
      figure: 'messages report CSV export rate (PG)',
      value: Math.round(rate),
      unit: 'rows/s',
      ...atLeast(rate, EXPORT_ROWS_PER_S),
      note: exportNote,
    },
    {
      figure: 'service RSS growth during the export (PG)',
      value: ex.rssGrowth === null ? null : round(ex.rssGrowth),
      unit: 'MB',
      ...below(ex.rssGrowth, RSS_GROWTH_MB),
      note: `VmRSS of the service sampled every 20 ms; before ${ex.rssBefore?.toFixed(1) ?? '—'} MB; ${exportNote}`,
    },
    {
      figure: 'export rows = report rows (PG)',
      value: ex.rows,
      unit: 'rows',
      target: `= ${reportCount!.n}`,
      // The export must equal the report row for row; the seed puts about `exportRows` messages in
      // the window (a few land on its edges), which the note shows.
      pass: ex.rows === reportCount!.n && reportCount!.n > 0,
      correctness: true,
      note: `report rows in the window ${reportCount!.n} (seeded for about ${size.exportRows})`,
    },
    {
      figure: 'bare SELECT 1 round trip p95 (PG, analytics)',
      value: round(baseline, 2),
      unit: 'ms',
      note: 'baseline of the analytics rows',
    },
  );
  return rows;
}
