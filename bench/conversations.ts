/**
 * Inbox list benchmark: latency of `GET /conversations` with filters on one workspace seeded with
 * 100,000 conversations and 1,000,000 messages (10 each), 200 sequential requests per scenario.
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/conversations.js
 *
 * The service runs as a child process (`dist/src/main.js`). The bench creates and drops its own
 * database on the DATABASE_URL server (required: the embedded engine is not the target here).
 * Seeding is set-based SQL (`INSERT … SELECT generate_series`), then ANALYZE.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
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
const CONTACTS = 20_000;
const AGENTS = 10;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);

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

async function seed(db: Client, workspaceId: string, channelId: string, agentIds: string[]): Promise<void> {
  const [queue] = (await db.query(`SELECT id FROM queues WHERE workspace_id = $1 AND is_default`, [workspaceId]))
    .rows as { id: string }[];
  await db.query(
    `INSERT INTO contacts (workspace_id, name, email)
     SELECT $1, 'Customer ' || i, 'customer' || i || '@example.com' FROM generate_series(1, ${CONTACTS}) AS i`,
    [workspaceId],
  );
  await db.query(
    `INSERT INTO conversations (workspace_id, contact_id, channel_id, channel_type, contact_external_id, status, priority,
                                queue_id, assignee_id, tags, last_message_at, created_at)
     SELECT $1, ct.id, $2, 'CUSTOM', 'ext-' || i,
            CASE WHEN i % 10 < 6 THEN 'RESOLVED' WHEN i % 10 < 8 THEN 'OPEN' ELSE 'ON_HOLD' END,
            (ARRAY['LOW', 'MEDIUM', 'HIGH', 'URGENT'])[1 + i % 4],
            $3, CASE WHEN i % 20 = 0 THEN NULL ELSE ($4::uuid[])[1 + abs(hashint4(i)) % ${AGENTS}] END,
            CASE WHEN i % 50 = 0 THEN ARRAY['vip'] ELSE ARRAY[]::text[] END,
            now() - (${CONVERSATIONS} - i) * interval '30 seconds',
            now() - (${CONVERSATIONS} - i) * interval '30 seconds' - interval '1 hour'
       FROM generate_series(1, ${CONVERSATIONS}) AS i
       JOIN (SELECT id, row_number() OVER (ORDER BY id) AS rn FROM contacts WHERE workspace_id = $1) ct
         ON ct.rn = 1 + i % ${CONTACTS}`,
    [workspaceId, channelId, queue!.id, agentIds],
  );
  await db.query(
    `INSERT INTO messages (workspace_id, conversation_id, channel_id, direction, sender_type, type, text, delivery_status, created_at)
     SELECT c.workspace_id, c.id, c.channel_id,
            CASE WHEN n % 2 = 1 THEN 'INBOUND' ELSE 'OUTBOUND' END,
            CASE WHEN n % 2 = 1 THEN 'CONTACT' ELSE 'AGENT' END, 'TEXT',
            CASE WHEN n = 1 AND c.created_at::text LIKE '%7:%' THEN 'Where is my parcel? order ' || left(c.id::text, 8)
                 ELSE 'Message ' || n || ' about order ' || left(c.id::text, 8) END,
            CASE WHEN n % 2 = 1 THEN 'RECEIVED' ELSE 'SENT' END,
            c.created_at + n * interval '1 second'
       FROM conversations c CROSS JOIN generate_series(1, ${MESSAGES_PER_CONVERSATION}) AS n
      WHERE c.workspace_id = $1`,
    [workspaceId],
  );
  await db.query('ANALYZE');
}

async function measure(
  base: string,
  headers: Record<string, string>,
  path: string,
  requests = REQUESTS,
): Promise<{ p50: number; p95: number; rows: number; requests: number }> {
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < requests + 5; i++) {
    const start = process.hrtime.bigint();
    const page = await call(base, headers, 'GET', path);
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    if (i >= 5) times.push(elapsed); // 5 warm-up requests
    rows = (page.data as unknown[]).length;
  }
  return {
    p50: Math.round(percentile(times, 50) * 10) / 10,
    p95: Math.round(percentile(times, 95) * 10) / 10,
    rows,
    requests,
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
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
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
    await db.query(`UPDATE workspaces SET plan = 'ENTERPRISE' WHERE id = $1`, [workspaceId]);
    const channel = await call(base, headers, 'POST', '/channels/connect', {
      type: 'CUSTOM',
      displayName: 'Bench',
      inboundSecret: 'bench-inbound-secret',
      outboundUrl: 'http://127.0.0.1:9/outbound',
    });
    const agents: { id: string; headers: Record<string, string> }[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const email = `agent${i}-${randomBytes(3).toString('hex')}@example.com`;
      const member = await call(base, headers, 'POST', '/workspace/members', {
        email,
        name: `Agent ${i}`,
        role: 'AGENT',
        password: 'password-123',
      });
      const login = await call(base, {}, 'POST', '/auth/login', { email, password: 'password-123' });
      agents.push({
        id: member.userId as string,
        headers: { authorization: `Bearer ${String(login.accessToken)}`, 'x-workspace-id': workspaceId },
      });
    }
    const seedStart = Date.now();
    await seed(
      db,
      workspaceId,
      channel.id as string,
      agents.map((a) => a.id),
    );
    const counts = (
      await db.query(
        `SELECT (SELECT count(*) FROM conversations)::int AS conversations, (SELECT count(*) FROM messages)::int AS messages`,
      )
    ).rows[0] as Json;
    const agent = agents[0]!;
    const scenarios: [string, Record<string, string>, string][] = [
      ['no filter', headers, '/conversations'],
      ['status=open', headers, '/conversations?status=open'],
      ['status=open,on_hold&priority=high,urgent', headers, '/conversations?status=open,on_hold&priority=high,urgent'],
      ['assigneeId=<agent>&status=open', headers, `/conversations?assigneeId=${agent.id}&status=open`],
      ['assigneeId=unassigned', headers, '/conversations?assigneeId=unassigned'],
      ['tag=vip', headers, '/conversations?tag=vip'],
      ['contactId=<contact>', headers, ''],
      ['search=parcel (message text, frequent)', headers, '/conversations?search=parcel'],
      ['search=customer42@ (contact email, rare)', headers, '/conversations?search=customer42%40'],
      ['search=zzz-no-match (worst case: full scan)', headers, '/conversations?search=zzz-no-match'],
      ['AGENT (visibility) status=open', agent.headers, '/conversations?status=open'],
      ['AGENT assigneeId=me', agent.headers, '/conversations?assigneeId=me'],
    ];
    const [someContact] = (await db.query(`SELECT contact_id FROM conversations LIMIT 1`)).rows as {
      contact_id: string;
    }[];
    scenarios[6]![2] = `/conversations?contactId=${someContact!.contact_id}`;
    const results: Record<string, unknown>[] = [];
    for (const [name, h, path] of scenarios) {
      results.push({ scenario: name, ...(await measure(base, h, path, name.includes('worst') ? 20 : REQUESTS)) });
    }
    // A deep page: 50 pages in.
    let cursor: string | null = null;
    for (let i = 0; i < 50; i++) {
      const page = await call(base, headers, 'GET', `/conversations?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      cursor = page.nextCursor as string;
    }
    results.push({
      scenario: 'page 51 (limit 100, keyset)',
      ...(await measure(base, headers, `/conversations?limit=100&cursor=${cursor}`)),
    });
    console.log(
      JSON.stringify(
        {
          engine: 'postgresql',
          ...counts,
          seedSeconds: Math.round((Date.now() - seedStart) / 1000),
          requestsPerScenario: REQUESTS,
          results,
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

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
