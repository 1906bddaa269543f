/**
 * Analytics benchmark (DESIGN §13, issue 14): one workspace seeded with 100,000 conversations and
 * 1,000,000 messages over the last 30 days (plus tickets, SLA records, CSAT, AI replies and
 * handoffs, presence intervals), then
 *
 * - p50/p95 of each `GET /analytics/*` endpoint for the 30-day window (DAY buckets), sequential;
 * - `GET /reports/messages/export?format=csv` of the whole window (1,000,000 rows): rows/s and the
 *   service's resident memory growth (VmRSS of the child process, sampled every 50 ms).
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/analytics.js
 *   BENCH_CONVERSATIONS=2000 BENCH_REQUESTS=5 …   # a quick run
 *
 * The service runs as a child process (`dist/src/main.js`) on its own database, created and dropped here.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

interface Json {
  [key: string]: unknown;
}

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 100_000);
const MESSAGES_PER_CONVERSATION = 10;
const AGENTS = 10;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 50);
const DAYS = 30;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function call(
  base: string,
  headers: Record<string, string>,
  method: string,
  path: string,
  body?: unknown,
): Promise<Json> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text.slice(0, 300)}`);
  return text ? (JSON.parse(text) as Json) : {};
}

async function startService(env: Record<string, string>): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/health`)).ok) return { child, base };
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error('service did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Resident memory of a process in MB (Linux /proc). */
function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Math.round(Number(match[1]) / 102.4) / 10 : 0;
}

async function seed(db: Client, workspaceId: string, channelId: string, agentIds: string[]): Promise<void> {
  const [queue] = (await db.query(`SELECT id FROM queues WHERE workspace_id = $1 AND is_default`, [workspaceId]))
    .rows as {
    id: string;
  }[];
  await db.query(
    `INSERT INTO contacts (workspace_id, name) SELECT $1, 'Customer ' || i FROM generate_series(1, 20000) AS i`,
    [workspaceId],
  );
  // Spread over the last 30 days; 60 % resolved, first response after 1–10 min, resolution after ≤ 5 h.
  await db.query(
    `INSERT INTO conversations (workspace_id, contact_id, channel_id, channel_type, contact_external_id, status, priority,
                                queue_id, assignee_id, assigned_at, first_response_at, resolved_at, last_message_at, created_at)
     SELECT $1, ct.id, $2, 'CUSTOM', 'ext-' || i,
            CASE WHEN i % 10 < 6 THEN 'RESOLVED' WHEN i % 10 < 8 THEN 'OPEN' ELSE 'ON_HOLD' END,
            (ARRAY['LOW', 'MEDIUM', 'HIGH', 'URGENT'])[1 + i % 4], $3,
            CASE WHEN i % 20 = 0 THEN NULL ELSE ($4::uuid[])[1 + abs(hashint4(i)) % ${AGENTS}] END,
            CASE WHEN i % 20 = 0 THEN NULL ELSE t END,
            t + (1 + i % 10) * interval '1 minute',
            CASE WHEN i % 10 < 6 THEN t + (i % 300) * interval '1 minute' END,
            t, t
       FROM generate_series(1, ${CONVERSATIONS}) AS i
       CROSS JOIN LATERAL (SELECT now() - interval '${DAYS} days' + (i::float8 / ${CONVERSATIONS}) * interval '${DAYS - 1} days' AS t) x
       JOIN (SELECT id, row_number() OVER (ORDER BY id) AS rn FROM contacts WHERE workspace_id = $1) ct ON ct.rn = 1 + i % 20000`,
    [workspaceId, channelId, queue!.id, agentIds],
  );
  // 10 messages each: odd inbound, even outbound (every 7th conversation answered by the AI).
  await db.query(
    `INSERT INTO messages (workspace_id, conversation_id, channel_id, direction, sender_type, type, text, delivery_status, created_at)
     SELECT c.workspace_id, c.id, c.channel_id,
            CASE WHEN n % 2 = 1 THEN 'INBOUND' ELSE 'OUTBOUND' END,
            CASE WHEN n % 2 = 1 THEN 'CONTACT' WHEN abs(hashtext(c.id::text)) % 7 = 0 THEN 'AI' ELSE 'AGENT' END, 'TEXT',
            'Message ' || n, CASE WHEN n % 2 = 1 THEN 'RECEIVED' ELSE 'SENT' END,
            c.created_at + n * interval '1 second'
       FROM conversations c CROSS JOIN generate_series(1, ${MESSAGES_PER_CONVERSATION}) AS n
      WHERE c.workspace_id = $1`,
    [workspaceId],
  );
  await db.query(
    `INSERT INTO ai_conversation_states (workspace_id, conversation_id, status, handed_off_at)
     SELECT c.workspace_id, c.id, CASE WHEN abs(hashtext(c.id::text)) % 3 = 0 THEN 'HANDED_OFF' ELSE 'ACTIVE' END,
            CASE WHEN abs(hashtext(c.id::text)) % 3 = 0 THEN c.created_at + interval '30 seconds' END
       FROM conversations c WHERE c.workspace_id = $1 AND abs(hashtext(c.id::text)) % 7 = 0`,
    [workspaceId],
  );
  await db.query(
    `INSERT INTO conversation_slas (workspace_id, conversation_id, policy_id, policy_name, conversation_created_at,
                                    first_response_due_at, resolution_due_at)
     SELECT c.workspace_id, c.id, gen_random_uuid(), 'Standard', c.created_at, c.created_at + interval '5 minutes',
            c.created_at + interval '4 hours'
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
  // Presence: each agent ONLINE 8 h a day, AWAY 1 h.
  await db.query(
    `INSERT INTO presence_intervals (workspace_id, user_id, status, started_at, ended_at)
     SELECT $1, a, s.status, d + s.off, d + s.off + s.len
       FROM unnest($2::uuid[]) AS a
       CROSS JOIN generate_series(now() - interval '${DAYS} days', now() - interval '1 day', interval '1 day') AS d
       CROSS JOIN (VALUES ('ONLINE', interval '8 hours', interval '8 hours'), ('AWAY', interval '16 hours', interval '1 hour')) AS s(status, off, len)`,
    [workspaceId, agentIds],
  );
  await db.query('ANALYZE');
}

async function measure(
  base: string,
  headers: Record<string, string>,
  path: string,
): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let i = 0; i < REQUESTS + 3; i++) {
    const start = process.hrtime.bigint();
    await call(base, headers, 'GET', path);
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    if (i >= 3) times.push(elapsed); // 3 warm-up requests
  }
  return { p50: Math.round(percentile(times, 50) * 10) / 10, p95: Math.round(percentile(times, 95) * 10) / 10 };
}

/** Streams the export to nowhere, counting lines and sampling the service's RSS. */
async function exportRun(base: string, headers: Record<string, string>, path: string, pid: number): Promise<Json> {
  const rssBefore = rssMb(pid);
  let rssMax = rssBefore;
  const sampler = setInterval(() => {
    rssMax = Math.max(rssMax, rssMb(pid));
  }, 50);
  const start = Date.now();
  let firstByteMs = 0;
  let lines = 0;
  let bytes = 0;
  try {
    const res = await fetch(`${base}${path}`, { headers });
    if (!res.ok || !res.body) throw new Error(`export → ${res.status}`);
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!firstByteMs) firstByteMs = Date.now() - start;
      bytes += value.length;
      for (const byte of value) if (byte === 10) lines++;
    }
  } finally {
    clearInterval(sampler);
  }
  const seconds = (Date.now() - start) / 1000;
  const rows = lines - 1;
  return {
    rows,
    megabytes: Math.round(bytes / 1e5) / 10,
    seconds: Math.round(seconds * 10) / 10,
    rowsPerSecond: Math.round(rows / seconds),
    firstByteMs,
    rssBeforeMb: rssBefore,
    rssMaxMb: rssMax,
    rssGrowthMb: Math.round((rssMax - rssBefore) * 10) / 10,
  };
}

async function main(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('DATABASE_URL (a PostgreSQL server) is required');
  const dataDir = mkdtempSync(join(tmpdir(), 'sis-bench-'));
  const dbName = `sis_bench_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const env: Record<string, string> = {
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    JWT_SECRET: 'bench-jwt-secret-0123456789',
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SIGNUP_ENABLED: 'true',
    DATABASE_URL: url.toString(),
  };
  const { child, base } = await startService(env);
  const db = new Client({ connectionString: url.toString() });
  await db.connect();
  try {
    const signup = await call(base, {}, 'POST', '/auth/signup', {
      workspaceName: 'Bench',
      name: 'Bench',
      email: `bench-${randomBytes(4).toString('hex')}@example.com`,
      password: 'password-123',
    });
    const workspaceId = (signup.workspaces as Json[])[0]!.id as string;
    const headers = { authorization: `Bearer ${String(signup.accessToken)}`, 'x-workspace-id': workspaceId };
    await call(base, headers, 'PUT', '/workspace', { timezone: 'Europe/Berlin' });
    const [channel] = (
      await db.query(
        `INSERT INTO channel_connections (workspace_id, type, name) VALUES ($1, 'CUSTOM', 'Bench') RETURNING id`,
        [workspaceId],
      )
    ).rows as { id: string }[];
    const agentIds: string[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const member = await call(base, headers, 'POST', '/workspace/members', {
        email: `agent${i}-${randomBytes(3).toString('hex')}@example.com`,
        name: `Agent ${i}`,
        role: 'AGENT',
        password: 'password-123',
      });
      agentIds.push(member.userId as string);
    }
    const seedStart = Date.now();
    await seed(db, workspaceId, channel!.id, agentIds);
    const counts = (
      await db.query(
        `SELECT (SELECT count(*) FROM conversations)::int AS conversations, (SELECT count(*) FROM messages)::int AS messages`,
      )
    ).rows[0] as Json;
    const to = new Date();
    const from = new Date(to.getTime() - DAYS * 86_400_000);
    const window = `from=${from.toISOString()}&to=${to.toISOString()}`;
    const results: Record<string, unknown>[] = [];
    for (const endpoint of ['summary', 'inbox', 'tickets', 'workforce', 'ai']) {
      results.push({
        endpoint: `/analytics/${endpoint}`,
        ...(await measure(base, headers, `/analytics/${endpoint}?${window}&interval=DAY`)),
      });
    }
    results.push({
      endpoint: '/analytics/inbox (HOUR, channelId)',
      ...(await measure(base, headers, `/analytics/inbox?${window}&interval=HOUR&channelId=${channel!.id}`)),
    });
    const exported = await exportRun(base, headers, `/reports/messages/export?format=csv&${window}`, child.pid!);
    console.log(
      JSON.stringify(
        {
          engine: 'postgresql',
          ...counts,
          seedSeconds: Math.round((Date.now() - seedStart) / 1000),
          requestsPerEndpoint: REQUESTS,
          window: `${DAYS} days, DAY buckets, Europe/Berlin`,
          results,
          export: { report: 'messages', ...exported },
        },
        null,
        2,
      ),
    );
  } finally {
    await db.end();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
