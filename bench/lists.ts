/**
 * List and search bench (DESIGN §13, §15): `GET /conversations` and `GET /contacts` with filters and
 * search, on the embedded engine and (with DATABASE_URL) PostgreSQL.
 *
 * Data, seeded with set-based SQL (`INSERT … SELECT generate_series`, then VACUUM ANALYZE):
 *   PostgreSQL: 100,000 conversations, 1,000,000 messages, 100,000 contacts (DESIGN §13);
 *   embedded:   a tenth of that (10,000 / 100,000 / 10,000) — generating the full set in PGlite
 *               takes longer than the rest of the bench; the table says which size each row used.
 *   --short:    2,000 / 20,000 / 2,000 on both.
 * Each scenario: sequential requests (one user), p95 of the latency seen by the client. Baseline:
 * a bare `SELECT 1` round trip to the same database from the bench, measured in the same run.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from 'pg';
import { sequential } from './lib/load';
import {
  type Service,
  adminSession,
  call,
  commonEnv,
  serviceDb,
  startService,
  stop,
  withDataDir,
  withDatabase,
} from './lib/service';
import { type BenchContext, type BenchRow, below, round } from './lib/types';

export const name = 'lists';

const AGENTS = 10;

interface Size {
  conversations: number;
  messagesPer: number;
  contacts: number;
}

async function seed(db: Client, workspaceId: string, channelId: string, agentIds: string[], size: Size): Promise<void> {
  const { conversations, messagesPer, contacts } = size;
  const [queue] = (await db.query(`SELECT id FROM queues WHERE workspace_id = '${workspaceId}' AND is_default`))
    .rows as { id: string }[];
  const agents = `ARRAY[${agentIds.map((a) => `'${a}'`).join(',')}]::uuid[]`;
  await db.query(
    `INSERT INTO contacts (workspace_id, name, email, phone)
     SELECT '${workspaceId}', (ARRAY['Somchai','Anna','José','Mai','Peter','Zoë','Kanya','Li'])[1 + i % 8] || ' Customer ' || i,
            'customer' || i || '@example.com', '+6681' || lpad(i::text, 7, '0')
       FROM generate_series(1, ${contacts}) AS i`,
  );
  await db.query(
    `INSERT INTO conversations (workspace_id, contact_id, channel_id, channel_type, contact_external_id, status, priority,
                                queue_id, assignee_id, tags, last_message_at, created_at)
     SELECT '${workspaceId}', ct.id, '${channelId}', 'CUSTOM', 'ext-' || i,
            CASE WHEN i % 10 < 6 THEN 'RESOLVED' WHEN i % 10 < 8 THEN 'OPEN' ELSE 'ON_HOLD' END,
            (ARRAY['LOW', 'MEDIUM', 'HIGH', 'URGENT'])[1 + i % 4],
            '${queue!.id}', CASE WHEN i % 20 = 0 THEN NULL ELSE (${agents})[1 + abs(hashint4(i)) % ${AGENTS}] END,
            CASE WHEN i % 50 = 0 THEN ARRAY['vip'] ELSE ARRAY[]::text[] END,
            now() - (${conversations} - i) * interval '30 seconds',
            now() - (${conversations} - i) * interval '30 seconds' - interval '1 hour'
       FROM generate_series(1, ${conversations}) AS i
       JOIN (SELECT id, row_number() OVER (ORDER BY id) AS rn FROM contacts WHERE workspace_id = '${workspaceId}') ct
         ON ct.rn = 1 + i % ${contacts}`,
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
       FROM conversations c CROSS JOIN generate_series(1, ${messagesPer}) AS n
      WHERE c.workspace_id = '${workspaceId}'`,
  );
  // VACUUM too: autovacuum (or, where it is off, the service's own table maintenance) vacuums freshly
  // inserted tables soon after; done here, the scenarios measure that settled state instead of racing it.
  await db.query('VACUUM ANALYZE');
}

async function selectBaseline(db: Client, n: number): Promise<number> {
  return (await sequential(n, async () => void (await db.query('SELECT 1')))).p95;
}

async function measureEngine(ctx: BenchContext, engine: string, service: Service, size: Size): Promise<BenchRow[]> {
  const { base } = service;
  const admin = await adminSession(base);
  const db = await serviceDb(service);
  const requests = ctx.short ? 20 : 200;
  try {
    const channel = await call(base, 'POST', '/channels/connect', admin.headers, {
      type: 'CUSTOM',
      displayName: 'Bench',
      inboundSecret: 'bench-inbound-secret',
      outboundUrl: 'http://127.0.0.1:9/outbound',
    });
    const agents: { id: string; headers: Record<string, string> }[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const email = `agent${i}-${randomBytes(3).toString('hex')}@example.com`;
      const member = await call(base, 'POST', '/workspace/members', admin.headers, {
        email,
        name: `Agent ${i}`,
        role: 'AGENT',
        password: 'password-123',
      });
      const login = await call(base, 'POST', '/auth/login', {}, { email, password: 'password-123' });
      agents.push({
        id: String(member.userId),
        headers: { authorization: `Bearer ${String(login.accessToken)}`, 'x-workspace-id': admin.workspaceId },
      });
    }
    ctx.log(
      `lists: seeding ${engine} (${size.conversations} conversations, ${size.conversations * size.messagesPer} messages, ${size.contacts} contacts)`,
    );
    const seedStart = performance.now();
    await seed(
      db,
      admin.workspaceId,
      String(channel.id),
      agents.map((a) => a.id),
      size,
    );
    const seedSeconds = Math.round((performance.now() - seedStart) / 1000);
    const [someContact] = (await db.query(`SELECT contact_id FROM conversations LIMIT 1`)).rows as {
      contact_id: string;
    }[];
    const agent = agents[0]!;
    const h = admin.headers;
    const scenarios: [string, Record<string, string>, string, boolean][] = [
      ['GET /conversations', h, '/conversations', false],
      ['GET /conversations?status=open', h, '/conversations?status=open', false],
      [
        'GET /conversations?status=open,on_hold&priority=high,urgent',
        h,
        '/conversations?status=open,on_hold&priority=high,urgent',
        false,
      ],
      [
        'GET /conversations?assigneeId=<agent>&status=open',
        h,
        `/conversations?assigneeId=${agent.id}&status=open`,
        false,
      ],
      ['GET /conversations?assigneeId=unassigned', h, '/conversations?assigneeId=unassigned', false],
      ['GET /conversations?tag=vip', h, '/conversations?tag=vip', false],
      ['GET /conversations?contactId=<contact>', h, `/conversations?contactId=${someContact!.contact_id}`, false],
      ['GET /conversations (AGENT visibility) status=open', agent.headers, '/conversations?status=open', false],
      ['GET /conversations?search=parcel (message text)', h, '/conversations?search=parcel', true],
      ['GET /conversations?search=customer42@ (contact)', h, '/conversations?search=customer42%40', true],
      ['GET /conversations?search=zzz-no-match', h, '/conversations?search=zzz-no-match', true],
      ['GET /contacts', h, '/contacts', false],
      ['GET /contacts?tag=vip', h, '/contacts?tag=vip', false],
      ['GET /contacts?search=somchai', h, '/contacts?search=somchai', true],
      ['GET /contacts?search=customer4242', h, '/contacts?search=customer4242', true],
      ['GET /contacts?search=zzz-no-match', h, '/contacts?search=zzz-no-match', true],
    ];
    const baselineP95 = await selectBaseline(db, requests);
    const sizeNote = `${size.conversations.toLocaleString('en')} conversations / ${(size.conversations * size.messagesPer).toLocaleString('en')} messages / ${size.contacts.toLocaleString('en')} contacts (seeded in ${seedSeconds} s)`;
    const rows: BenchRow[] = [];
    for (const [label, headers, path, search] of scenarios) {
      let count = 0;
      const r = await sequential(requests, async () => {
        const page = await call(base, 'GET', path, headers);
        count = (page.data as unknown[]).length;
      });
      rows.push({
        figure: `${label} p95 (${engine})`,
        value: round(r.p95),
        unit: 'ms',
        ...below(r.p95, 50),
        ratio: round(r.p95 / baselineP95, 1),
        baseline: `SELECT 1 p95 ${baselineP95.toFixed(2)} ms`,
        note: `${search ? 'search; ' : ''}p50 ${r.p50.toFixed(1)} ms, ${r.n} requests, ${count} rows on the page; ${sizeNote}`,
      });
    }
    const after = await selectBaseline(db, requests);
    rows.push({
      figure: `bare SELECT 1 round trip p95 (${engine})`,
      value: round(baselineP95, 2),
      unit: 'ms',
      note: `baseline of the list rows; measured again after them: ${after.toFixed(2)} ms`,
    });
    return rows;
  } finally {
    await db.end();
  }
}

export async function run(ctx: BenchContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const full: Size = ctx.short
    ? { conversations: 2_000, messagesPer: 10, contacts: 2_000 }
    : { conversations: 100_000, messagesPer: 10, contacts: 100_000 };
  const tenth: Size = ctx.short ? full : { conversations: 10_000, messagesPer: 10, contacts: 10_000 };
  if (ctx.embedded)
    await withDataDir(async (dir) => {
      const service = await startService(commonEnv(dir));
      try {
        rows.push(...(await measureEngine(ctx, 'embedded', service, tenth)));
      } finally {
        await stop(service.child);
      }
    });
  if (ctx.databaseUrl) {
    await withDataDir((dir) =>
      withDatabase(ctx.databaseUrl!, async (url) => {
        const service = await startService({ ...commonEnv(dir), DATABASE_URL: url });
        try {
          rows.push(...(await measureEngine(ctx, 'PG', service, full)));
        } finally {
          await stop(service.child);
        }
      }),
    );
  } else ctx.log('lists: PostgreSQL round skipped (needs DATABASE_URL)');
  return rows;
}
