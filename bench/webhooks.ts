/**
 * Developer webhooks benchmark (issue 11): inbound pipeline messages/s with three active webhooks
 * next to none, and delivery throughput (deliveries/s) to a local receiver.
 *
 *   npm run build && node dist/bench/webhooks.js
 *   WEBHOOK_BENCH_MESSAGES=100 node dist/bench/webhooks.js        # short mode
 *   DATABASE_URL=… REDIS_URL=… node dist/bench/webhooks.js         # adds PostgreSQL + BullMQ (api + worker)
 *   WEBHOOK_BENCH_EMBEDDED=false …                                 # PostgreSQL + BullMQ only
 *
 * Per configuration the service runs as a child process (`dist/src/main.js`). Round "none": MESSAGES
 * signed Custom Channel messages from SENDERS customers, sent as fast as the service takes them;
 * messages/s = messages / (pipeline drained − first request). Round "3 webhooks": the same after
 * creating three webhooks subscribed to every event, whose receiver answers 200 at once; the
 * pipeline figure is measured the same way, and deliveries/s = deliveries received / (last delivery
 * − first request). Every message makes at least `message.received` (plus `conversation.created`,
 * `contact.created`, `ticket.created` for a new customer), so deliveries ≥ 3 × messages.
 */
import autocannon, { type Request as CannonRequest } from 'autocannon';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

const MESSAGES = Number(process.env.WEBHOOK_BENCH_MESSAGES ?? 1000);
const SENDERS = Number(process.env.WEBHOOK_BENCH_SENDERS ?? 100);
const ADMIN_PASSWORD = 'bench-password-1';

type Json = Record<string, unknown>;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function call(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Json> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text.slice(0, 300)}`);
  return text ? (JSON.parse(text) as Json) : {};
}

function spawnService(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['dist/src/main.js'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function startService(env: Record<string, string>): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawnService({ ...env, PORT: String(port) });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 300_000;
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

async function stop(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

/** The webhook receiver (and the channel's reply sink): counts POSTs, answers 200 at once. */
async function receiver(): Promise<{ server: Server; url: string; count: () => number; lastAt: () => number }> {
  let count = 0;
  let lastAt = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.startsWith('/hook')) {
        count++;
        lastAt = Date.now();
      }
      res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url, count: () => count, lastAt: () => lastAt };
}

interface Setup {
  readonly headers: Record<string, string>;
  readonly channelId: string;
  readonly secret: string;
}

async function setup(base: string, outboundUrl: string): Promise<Setup> {
  const login = await call(base, 'POST', '/auth/login', {}, { email: 'admin@example.com', password: ADMIN_PASSWORD });
  const workspace = (login.workspaces as Json[])[0]!;
  const headers = { authorization: `Bearer ${String(login.accessToken)}`, 'x-workspace-id': String(workspace.id) };
  const userId = String((login.user as Json).id);
  await call(base, 'PUT', '/queues/capacity', headers, { agents: [{ userId, maxConversations: 1000 }] });
  await call(base, 'POST', '/analytics/presence', headers, { status: 'ONLINE' });
  const secret = randomBytes(24).toString('hex');
  const channel = await call(base, 'POST', '/channels/connect', headers, {
    type: 'CUSTOM',
    displayName: 'Bench',
    inboundSecret: secret,
    outboundUrl,
  });
  return { headers, channelId: String(channel.id), secret };
}

function signedMessages(secret: string, senders: number, tag: string): CannonRequest[] {
  let n = 0;
  return [
    {
      method: 'POST',
      setupRequest: (request) => {
        n++;
        const body = JSON.stringify({ senderId: `${tag}-${n % senders}`, text: `Message ${n} from the bench` });
        const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
        return {
          ...request,
          body,
          headers: { ...request.headers, 'content-type': 'application/json', 'x-service-signature': signature },
        };
      },
    },
  ];
}

async function waitDrained(base: string, s: Setup): Promise<number> {
  const deadline = Date.now() + 600_000;
  for (;;) {
    let busy = false;
    for (const status of ['RECEIVED', 'PROCESSING']) {
      const page = await call(base, 'GET', `/channels/${s.channelId}/events?status=${status}&limit=1`, s.headers);
      if ((page.data as unknown[]).length > 0) busy = true;
    }
    if (!busy) return Date.now();
    if (Date.now() > deadline) throw new Error('pipeline did not drain in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function burst(
  base: string,
  s: Setup,
  tag: string,
): Promise<{ processed: number; started: number; drainedAt: number }> {
  const started = Date.now();
  const result = await autocannon({
    url: `${base}/custom-channel/${s.channelId}/inbound`,
    connections: 20,
    amount: MESSAGES,
    timeout: 60,
    requests: signedMessages(s.secret, SENDERS, tag),
  });
  return { processed: result['2xx'], started, drainedAt: await waitDrained(base, s) };
}

async function round(label: string, env: Record<string, string>, split: boolean): Promise<Json> {
  const rx = await receiver();
  const { child, base } = await startService(split ? { ...env, APP_ROLE: 'api' } : env);
  let worker: ChildProcess | null = null;
  try {
    if (split) {
      worker = spawnService({ ...env, APP_ROLE: 'worker', PORT: '0' });
      await new Promise((r) => setTimeout(r, 5_000));
    }
    const s = await setup(base, `${rx.url}/replies`);
    const none = await burst(base, s, 'none');
    for (let i = 1; i <= 3; i++) {
      await call(base, 'POST', '/developer/webhooks', s.headers, {
        url: `${rx.url}/hook-${i}`,
        events: ['conversation.created', 'message.received', 'contact.created', 'ticket.created'],
      });
    }
    const hooked = await burst(base, s, 'hooked');
    // Deliveries finish after the pipeline: wait until the count stops moving.
    let last = -1;
    while (rx.count() !== last) {
      last = rx.count();
      await new Promise((r) => setTimeout(r, 2_000));
    }
    const noneRate = none.processed / ((none.drainedAt - none.started) / 1000);
    const hookedRate = hooked.processed / ((hooked.drainedAt - hooked.started) / 1000);
    return {
      setup: label,
      messages: `${MESSAGES} per round from ${SENDERS} customers`,
      'pipeline, no webhooks (messages/s)': Math.round(noneRate),
      'pipeline, 3 active webhooks (messages/s)': Math.round(hookedRate),
      'with webhooks / without': `${Math.round((hookedRate / noneRate) * 100)} %`,
      deliveries: rx.count(),
      'deliveries/s': Math.round(rx.count() / ((rx.lastAt() - hooked.started) / 1000)),
    };
  } finally {
    await stop(child);
    await stop(worker);
    rx.server.close();
  }
}

async function withDatabase<T>(adminUrl: string, run: (url: string) => Promise<T>): Promise<T> {
  const name = `sis_bench_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    return await run(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

async function main(): Promise<void> {
  const common = {
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
    LOG_LEVEL: 'warn',
    LOGIN_RATE_LIMIT: '100000',
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
  };
  const results: Json[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'sis-bench-webhooks-'));
  try {
    // WEBHOOK_BENCH_EMBEDDED=false measures only PostgreSQL + BullMQ.
    if (process.env.WEBHOOK_BENCH_EMBEDDED !== 'false') {
      results.push(await round('embedded PGlite, inline jobs', { ...common, DATA_DIR: dataDir }, false));
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  const databaseUrl = process.env.DATABASE_URL;
  const redisUrl = process.env.REDIS_URL;
  if (databaseUrl && redisUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'sis-bench-webhooks-'));
    try {
      results.push(
        await withDatabase(databaseUrl, (url) =>
          round(
            'PostgreSQL, BullMQ on Redis: one api + one worker process',
            {
              ...common,
              DATA_DIR: dir,
              DATABASE_URL: url,
              REDIS_URL: redisUrl,
              QUEUE_PREFIX: `bench-${randomBytes(3).toString('hex')}`,
            },
            true,
          ),
        ),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  for (const result of results) {
    process.stdout.write(`\n## webhooks: ${String(result.setup)}\n`);
    for (const [key, value] of Object.entries(result))
      if (key !== 'setup') process.stdout.write(`${key}: ${String(value)}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
