/**
 * What the pipeline benches share (inbox, automations, webhooks): a service to send messages to
 * (embedded with inline jobs, or PostgreSQL + Redis with one `api` and one `worker` process, the
 * docker-compose topology), agents ONLINE with room for every conversation, a signed Custom Channel,
 * and the pipeline figure counted from the database: messages stored, in an assigned conversation
 * and ticketed, per second from the first request to the last event processed.
 *
 * Cost: `countStatements` preloads lib/statement-counter.js into the process that runs the pipeline
 * (the worker on PostgreSQL + Redis, the single process on the embedded engine), so each burst also
 * reports SQL statements and Redis commands per message — figures a loaded machine cannot distort.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Client } from 'pg';
import { load } from './load';
import {
  type Service,
  adminSession,
  call,
  commonEnv,
  startService,
  startWorker,
  stop,
  withDataDir,
  withDatabase,
} from './service';
import { type Counts, delta, readCounts } from './statement-counter';
import type { BenchContext } from './types';

export interface InboxChannel {
  readonly id: string;
  readonly secret: string;
  readonly url: string;
  /** The admin's headers (ENTERPRISE workspace). */
  readonly headers: Record<string, string>;
  readonly workspaceId: string;
}

/** An HTTP server answering 200 to everything (the channel's outbound URL, webhook receivers), counting POSTs per path prefix. */
export async function sink(): Promise<{ server: Server; url: string; count: (prefix: string) => number }> {
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    req.resume();
    req.once('end', () => {
      const prefix = (req.url ?? '/').split('/')[1] ?? '';
      counts.set(prefix, (counts.get(prefix) ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: (prefix) => counts.get(prefix) ?? 0,
  };
}

/** Admin + two more agents ONLINE with room for 1,000 conversations each; a Custom Channel replying to `outboundUrl`. */
export async function setupInbox(service: Service, outboundUrl: string): Promise<InboxChannel> {
  const { base } = service;
  const admin = await adminSession(base);
  const agents = [admin.userId];
  for (let i = 0; i < 2; i++) {
    const email = `bench-agent-${i}-${randomBytes(3).toString('hex')}@example.com`;
    const member = await call(base, 'POST', '/workspace/members', admin.headers, {
      email,
      name: `Agent ${i}`,
      role: 'AGENT',
      password: 'password-123',
    });
    const login = await call(base, 'POST', '/auth/login', {}, { email, password: 'password-123' });
    const headers = { authorization: `Bearer ${String(login.accessToken)}`, 'x-workspace-id': admin.workspaceId };
    await call(base, 'POST', '/analytics/presence', headers, { status: 'ONLINE' });
    agents.push(String(member.userId));
  }
  await call(base, 'PUT', '/queues/capacity', admin.headers, {
    agents: agents.map((userId) => ({ userId, maxConversations: 1000 })),
  });
  await call(base, 'POST', '/analytics/presence', admin.headers, { status: 'ONLINE' });
  const secret = randomBytes(24).toString('hex');
  const channel = await call(base, 'POST', '/channels/connect', admin.headers, {
    type: 'CUSTOM',
    displayName: 'Bench',
    inboundSecret: secret,
    outboundUrl,
  });
  return {
    id: String(channel.id),
    secret,
    url: `${base}/custom-channel/${String(channel.id)}/inbound`,
    headers: admin.headers,
    workspaceId: admin.workspaceId,
  };
}

/** What a bench message says after its `bench <tag>-<i>` prefix (by default, nothing a stage acts on). */
export type MessageText = (i: number) => string;
const PLAIN_TEXT: MessageText = () => 'message from the load generator';

/** Signed request i of a phase: a unique text (`bench <tag>-<i> …`) so the bench can find it among stored rows. */
export function signed(secret: string, tag: string, senders: number, text: MessageText = PLAIN_TEXT) {
  return (i: number) => {
    const body = JSON.stringify({
      senderId: `${tag}-s${i % senders}`,
      senderName: `Customer ${i % senders}`,
      text: `bench ${tag}-${i} ${text(i)}`,
    });
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    return { body, headers: { 'content-type': 'application/json', 'x-service-signature': signature } };
  };
}

export async function pendingEvents(db: Client): Promise<number> {
  const { rows } = await db.query(
    `SELECT count(*)::int AS n FROM inbound_events WHERE status IN ('RECEIVED', 'PROCESSING')`,
  );
  return (rows[0] as { n: number }).n;
}

export async function waitDrained(db: Client, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let logged = Date.now();
  for (let pending = await pendingEvents(db); pending > 0; pending = await pendingEvents(db)) {
    if (Date.now() > deadline) throw new Error(`pipeline did not drain in time (${pending} events pending)`);
    if (process.env.BENCH_VERBOSE && Date.now() - logged > 5000) {
      logged = Date.now();
      console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${pending} events pending`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Stored events whose text carries `tag-` (a phase of this run), and their statuses. */
export async function stored(
  db: Client,
  tag: string,
): Promise<{ texts: Set<string>; failed: number; processedAtMax: number }> {
  const texts = new Set<string>();
  let failed = 0;
  let processedAtMax = 0;
  // In pages (by seq): the embedded engine's answers come over the admin socket, whose lines are
  // limited to 4 MB — one answer for a 50,000-event ack round is larger.
  let after = '0';
  for (;;) {
    const { rows } = await db.query(
      `SELECT e.seq::text AS after, e.payload->>'text' AS text, e.status,
              extract(epoch FROM e.processed_at) * 1000 AS processed
         FROM inbound_events e WHERE e.payload->>'text' LIKE 'bench ${tag}-%' AND e.seq > $1::bigint
        ORDER BY e.seq LIMIT 10000`,
      [after],
    );
    for (const row of rows as { after: string; text: string; status: string; processed: string | null }[]) {
      texts.add(row.text.split(' ')[1]!);
      if (row.status === 'FAILED') failed++;
      if (row.processed) processedAtMax = Math.max(processedAtMax, Number(row.processed));
      after = row.after;
    }
    if (rows.length < 10000) break;
  }
  return { texts, failed, processedAtMax };
}

/** Inbound messages of phase `tag` that are stored, in a conversation with an assignee, and ticketed. */
export async function completed(db: Client, tag: string): Promise<number> {
  const { rows } = await db.query(
    `SELECT count(*)::int AS n FROM messages m
       JOIN conversations c ON c.id = m.conversation_id
      WHERE m.text LIKE 'bench ${tag}-%' AND m.direction = 'INBOUND' AND c.assignee_id IS NOT NULL
        AND EXISTS (SELECT 1 FROM tickets t WHERE t.conversation_id = c.id)`,
  );
  return (rows[0] as { n: number }).n;
}

/** A service to run the pipeline on, with the file its statement counter writes (when asked for). */
export interface PipelineService {
  readonly service: Service;
  readonly engine: 'embedded' | 'PG + Redis';
  /** The pipeline process's statement counts now (zeros without `countStatements`). */
  counts(): Counts;
}

/**
 * Runs `fn` once per engine the context allows: embedded (one process, inline jobs) and, with
 * DATABASE_URL + REDIS_URL, PostgreSQL with BullMQ (an `api` process and a `worker` process).
 */
export async function forEachEngine(
  ctx: BenchContext,
  options: { countStatements?: boolean; env?: Record<string, string> },
  fn: (p: PipelineService) => Promise<void>,
): Promise<void> {
  const preload = join(__dirname, 'statement-counter.js');
  // BENCH_CPU_PROF=<dir>: the preload also writes a CPU profile of the pipeline process when it stops.
  const profile: Record<string, string> = process.env.BENCH_CPU_PROF
    ? { BENCH_CPU_PROF: process.env.BENCH_CPU_PROF }
    : {};
  const counted = (dir: string): { env: Record<string, string>; nodeArgs: string[] } =>
    options.countStatements
      ? {
          env: { BENCH_STATEMENT_COUNT_FILE: join(dir, 'statements.json'), ...profile },
          nodeArgs: ['--require', preload],
        }
      : { env: {}, nodeArgs: [] };
  if (ctx.embedded)
    await withDataDir(async (dir) => {
      const c = counted(dir);
      const service = await startService({ ...commonEnv(dir), ...options.env, ...c.env }, undefined, c.nodeArgs);
      try {
        await fn({ service, engine: 'embedded', counts: () => readCounts(join(dir, 'statements.json')) });
      } finally {
        await stop(service.child);
      }
    });
  if (ctx.databaseUrl && ctx.redisUrl) {
    const redisUrl = ctx.redisUrl;
    await withDataDir((dir) =>
      withDatabase(ctx.databaseUrl!, async (url) => {
        const env = {
          ...commonEnv(dir),
          ...options.env,
          DATABASE_URL: url,
          REDIS_URL: redisUrl,
          QUEUE_PREFIX: `bench-${randomBytes(3).toString('hex')}`,
        };
        const service = await startService({ ...env, APP_ROLE: 'api' });
        const c = counted(dir);
        const worker = await startWorker({ ...env, ...c.env }, c.nodeArgs).catch(async (e: unknown) => {
          await stop(service.child);
          throw e;
        });
        try {
          await fn({ service, engine: 'PG + Redis', counts: () => readCounts(join(dir, 'statements.json')) });
        } finally {
          await stop(service.child);
          await stop(worker);
        }
      }),
    );
  } else ctx.log('PostgreSQL + Redis round skipped (needs DATABASE_URL and REDIS_URL)');
}

/**
 * The counts once they stop moving: the counter's file is rewritten every 250 ms (later on a loaded
 * machine), and after-commit work (outbox relay, delivery jobs) follows the last event by a moment.
 */
async function settledCounts(p: PipelineService): Promise<Counts> {
  let last = p.counts();
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 1_000));
    const now = p.counts();
    if (now.sql === last.sql && now.redis === last.redis) return now;
    last = now;
  }
  return last;
}

export interface BurstResult {
  /** Stored + assigned + ticketed messages per second (first request → last event processed). */
  readonly rate: number;
  readonly sent: number;
  readonly acknowledged: number;
  readonly stored: number;
  readonly complete: number;
  readonly failed: number;
  /** SQL statements / Redis commands of the pipeline process per message sent (null when not counted). */
  readonly statementsPerMessage: number | null;
  readonly redisPerMessage: number | null;
  /** CPU ms (user + system) of the pipeline process per message sent (null when not counted). */
  readonly cpuMsPerMessage: number | null;
  /** The statements that grew most during the burst (`shape: count`). */
  readonly topStatements: [string, number][];
  /** With BENCH_STATEMENT_TIMES=1 in the service: ms spent per statement during the burst, largest first. */
  readonly topStatementMs: [string, number][];
}

/**
 * One burst: `messages` signed messages from `senders` customers, sent back to back on 20
 * connections, then waits for the pipeline to drain and counts what is complete.
 */
export async function burst(
  p: PipelineService,
  db: Client,
  channel: InboxChannel,
  tag: string,
  messages: number,
  senders: number,
  text?: MessageText,
): Promise<BurstResult> {
  const before = await settledCounts(p);
  const started = Date.now();
  const sent = await load({
    url: channel.url,
    connections: 20,
    durationMs: 900_000,
    count: messages,
    build: signed(channel.secret, tag, senders, text),
  });
  await waitDrained(db, 900_000);
  const after = await settledCounts(p);
  const found = await stored(db, tag);
  const complete = await completed(db, tag);
  const counted = after.sql > 0;
  const d = delta(before, after);
  return {
    rate: found.processedAtMax > started ? (complete * 1000) / (found.processedAtMax - started) : 0,
    sent: messages,
    acknowledged: sent.ok,
    stored: found.texts.size,
    complete,
    failed: found.failed,
    statementsPerMessage: counted ? d.sql / messages : null,
    redisPerMessage: counted ? d.redis / messages : null,
    cpuMsPerMessage: counted ? d.cpuMs / messages : null,
    topStatements: d.top,
    topStatementMs: d.timeTop,
  };
}

export function describeBurst(b: BurstResult): string {
  const cost =
    b.statementsPerMessage === null
      ? ''
      : `; ${b.statementsPerMessage.toFixed(1)} SQL statements, ${(b.redisPerMessage ?? 0).toFixed(1)} Redis commands and ${(b.cpuMsPerMessage ?? 0).toFixed(2)} CPU ms of the pipeline process per message`;
  return `${b.complete} of ${b.sent} complete (${b.acknowledged} acknowledged, ${b.stored} stored, FAILED ${b.failed})${cost}`;
}
