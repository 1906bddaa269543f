/**
 * Inbox benchmark (DESIGN §13): webhook acknowledgement latency and inbound pipeline throughput.
 *
 *   npm run build && node dist/bench/inbox.js
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379 node dist/bench/inbox.js
 *
 * The service runs as a child process (`dist/src/main.js`, role `all`: HTTP and workers in one
 * process) on the embedded database with in-process jobs; with DATABASE_URL and REDIS_URL a second
 * round runs on a fresh PostgreSQL database with BullMQ. Every request is a Custom Channel message
 * signed with the connection's inbound secret (`X-Service-Signature`), sent with autocannon.
 *
 * 1. Acknowledgement: ACK_REQUESTS requests at ACK_RATE req/s over 50 connections (the pipeline
 *    processes them at the same time, as in production); median and p99 latency of the 200s.
 * 2. Pipeline: PIPELINE_MESSAGES messages from PIPELINE_SENDERS customers sent as fast as the
 *    service takes them; messages/s = messages / (last event processed − first request), each
 *    stored with its contact, an assigned conversation and the message.
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

const ACK_REQUESTS = Number(process.env.ACK_REQUESTS ?? 5000);
const ACK_RATE = Number(process.env.ACK_RATE ?? 500);
const PIPELINE_MESSAGES = Number(process.env.PIPELINE_MESSAGES ?? 3000);
const PIPELINE_SENDERS = Number(process.env.PIPELINE_SENDERS ?? 300);
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

async function startService(env: Record<string, string>): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port) },
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

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

/** A sink for replies (the channel's outbound URL); the bench sends none, but connect needs one. */
async function sink(): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => res.writeHead(200).end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/replies` };
}

interface Setup {
  readonly headers: Record<string, string>;
  readonly channelId: string;
  readonly secret: string;
}

/** Logs in as the bootstrap admin (ENTERPRISE workspace), goes ONLINE with room for every conversation, connects a Custom Channel. */
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

/** autocannon request with a fresh body (and signature) per request. */
function signedMessages(secret: string, senders: number, tag: string): CannonRequest[] {
  let n = 0;
  return [
    {
      method: 'POST',
      setupRequest: (request) => {
        n++;
        const body = JSON.stringify({
          senderId: `${tag}-${n % senders}`,
          senderName: `Customer ${n % senders}`,
          text: `Message ${n} from the bench`,
        });
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

async function pending(base: string, s: Setup): Promise<boolean> {
  for (const status of ['RECEIVED', 'PROCESSING']) {
    const page = await call(base, 'GET', `/channels/${s.channelId}/events?status=${status}&limit=1`, s.headers);
    if ((page.data as unknown[]).length > 0) return true;
  }
  return false;
}

async function waitDrained(base: string, s: Setup, timeoutMs = 600_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (await pending(base, s)) {
    if (Date.now() > deadline) throw new Error('pipeline did not drain in time');
    await new Promise((r) => setTimeout(r, 100));
  }
  return Date.now();
}

/** Starts a worker-role process (no HTTP) and gives it time to wire its queues. */
async function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: { PATH: process.env.PATH ?? '', ...env, APP_ROLE: 'worker', PORT: '0' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await new Promise((r) => setTimeout(r, 5_000));
  if (child.exitCode !== null) throw new Error(`worker exited with ${child.exitCode}`);
  return child;
}

/**
 * One configuration. `split`: an `api` process serving HTTP and a `worker` process running the
 * jobs (the docker-compose topology); otherwise one `all` process does both.
 */
async function round(label: string, env: Record<string, string>, split = false): Promise<Json> {
  const replies = await sink();
  const { child, base } = await startService(split ? { ...env, APP_ROLE: 'api' } : env);
  const worker = split ? await startWorker(env) : null;
  try {
    const s = await setup(base, replies.url);
    const url = `${base}/custom-channel/${s.channelId}/inbound`;

    const ack = await autocannon({
      url,
      connections: 50,
      amount: ACK_REQUESTS,
      overallRate: ACK_RATE,
      timeout: 30,
      requests: signedMessages(s.secret, 1000, 'ack'),
    });
    await waitDrained(base, s);

    const started = Date.now();
    const burst = await autocannon({
      url,
      connections: 20,
      amount: PIPELINE_MESSAGES,
      timeout: 60,
      requests: signedMessages(s.secret, PIPELINE_SENDERS, 'pipe'),
    });
    const acceptedAt = Date.now();
    const drainedAt = await waitDrained(base, s);
    const processed = burst['2xx'];

    return {
      setup: label,
      'ack requests (2xx / sent)': `${ack['2xx']} / ${ACK_REQUESTS} at ${ACK_RATE} req/s (non-2xx ${ack.non2xx}, errors ${ack.errors})`,
      'ack latency median (ms)': ack.latency.p50,
      'ack latency p99 (ms)': ack.latency.p99,
      'ack latency max (ms)': ack.latency.max,
      'pipeline messages': `${processed} from ${PIPELINE_SENDERS} customers`,
      'pipeline accepted (req/s)': Math.round(processed / ((acceptedAt - started) / 1000)),
      'pipeline end to end (messages/s)': Math.round(processed / ((drainedAt - started) / 1000)),
    };
  } finally {
    await stop(child);
    if (worker) await stop(worker);
    replies.server.close();
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
  const dataDir = mkdtempSync(join(tmpdir(), 'sis-bench-inbox-'));
  try {
    results.push(await round('embedded PGlite, inline jobs', { ...common, DATA_DIR: dataDir }));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  const databaseUrl = process.env.DATABASE_URL;
  const redisUrl = process.env.REDIS_URL;
  if (databaseUrl && redisUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'sis-bench-inbox-'));
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
      results.push(
        await withDatabase(databaseUrl, (url) =>
          round('PostgreSQL, BullMQ on Redis: one process (role all)', {
            ...common,
            DATA_DIR: dir,
            DATABASE_URL: url,
            REDIS_URL: redisUrl,
            QUEUE_PREFIX: `bench-${randomBytes(3).toString('hex')}`,
          }),
        ),
      );
      results.push(
        await withDatabase(databaseUrl, (url) =>
          round('PostgreSQL, inline jobs', { ...common, DATA_DIR: dir, DATABASE_URL: url }),
        ),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  for (const result of results) {
    process.stdout.write(`\n## inbox: ${String(result.setup)}\n`);
    for (const [key, value] of Object.entries(result))
      if (key !== 'setup') process.stdout.write(`${key}: ${String(value)}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
