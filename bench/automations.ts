/**
 * Automations benchmark (issue 12, DESIGN §13): inbound pipeline throughput with 50 active RULE
 * automations on `message.received` that match nothing, against the same service with none.
 * Goal: ≥ 80 % of the figure without rules (the engine reads one cache-version row per event,
 * evaluates the rules in memory and writes the event's runs in one statement).
 *
 *   npm run build && node dist/bench/automations.js
 *   AUTOMATIONS_MESSAGES=200 node dist/bench/automations.js     # short run while developing
 *
 * The service runs as a child process (`dist/src/main.js`, role `all`) on the embedded database
 * with in-process jobs; Custom Channel messages signed with the inbound secret are sent with
 * autocannon; messages/s = messages / (last event processed − first request). Rounds alternate
 * (none, 50, none, 50) so drift of the machine affects both alike; the best of each is reported.
 */
import autocannon, { type Request as CannonRequest } from 'autocannon';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MESSAGES = Number(process.env.AUTOMATIONS_MESSAGES ?? 1000);
const SENDERS = Number(process.env.AUTOMATIONS_SENDERS ?? 100);
const RULES = 50;
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

function signedMessages(secret: string, tag: string): CannonRequest[] {
  let n = 0;
  return [
    {
      method: 'POST',
      setupRequest: (request) => {
        n++;
        const body = JSON.stringify({
          senderId: `${tag}-${n % SENDERS}`,
          senderName: `Customer ${n % SENDERS}`,
          text: `Where is my order ${n}?`,
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

async function drained(base: string, s: Setup): Promise<number> {
  const deadline = Date.now() + 900_000;
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

/** One burst of MESSAGES; messages/s end to end. */
async function burst(base: string, s: Setup, tag: string): Promise<number> {
  const started = Date.now();
  const result = await autocannon({
    url: `${base}/custom-channel/${s.channelId}/inbound`,
    connections: 20,
    amount: MESSAGES,
    timeout: 60,
    requests: signedMessages(s.secret, tag),
  });
  const end = await drained(base, s);
  return result['2xx'] / ((end - started) / 1000);
}

/** 50 active rules on message.received, none of which matches the bench's messages. */
async function addRules(base: string, s: Setup): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < RULES; i++) {
    const rule = await call(base, 'POST', '/automations', s.headers, {
      name: `Bench rule ${i}`,
      kind: 'RULE',
      trigger: 'message.received',
      order: i,
      conditions: {
        all: [
          { field: 'message.text', operator: 'contains', value: `refund-${i}` },
          { field: 'conversation.priority', operator: 'in', value: ['HIGH', 'URGENT'] },
        ],
        any: [],
      },
      actions: [
        { type: 'ADD_TAGS', params: { tags: [`bench-${i}`] } },
        { type: 'SET_PRIORITY', params: { priority: 'HIGH' } },
      ],
    });
    ids.push(String(rule.id));
  }
  return ids;
}

async function setActive(base: string, s: Setup, ids: string[], active: boolean): Promise<void> {
  for (const [i, id] of ids.entries()) {
    await call(base, 'PUT', `/automations/${id}`, s.headers, {
      name: `Bench rule ${i}`,
      kind: 'RULE',
      active,
      trigger: 'message.received',
      order: i,
      conditions: { all: [{ field: 'message.text', operator: 'contains', value: `refund-${i}` }], any: [] },
      actions: [{ type: 'ADD_TAGS', params: { tags: [`bench-${i}`] } }],
    });
  }
}

async function main(): Promise<void> {
  const replies: Server = createServer((_req, res) => res.writeHead(200).end('{}'));
  await new Promise<void>((resolve) => replies.listen(0, '127.0.0.1', resolve));
  const outboundUrl = `http://127.0.0.1:${(replies.address() as AddressInfo).port}/replies`;
  const dataDir = mkdtempSync(join(tmpdir(), 'sis-bench-automations-'));
  const { child, base } = await startService({
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
    LOG_LEVEL: 'warn',
    LOGIN_RATE_LIMIT: '100000',
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    DATA_DIR: dataDir,
  });
  try {
    const s = await setup(base, outboundUrl);
    // Warm-up (contacts and conversations of every sender exist afterwards in both rounds).
    await burst(base, s, 'warm');
    const none: number[] = [];
    const fifty: number[] = [];
    none.push(await burst(base, s, 'a'));
    const ids = await addRules(base, s);
    fifty.push(await burst(base, s, 'b'));
    await setActive(base, s, ids, false);
    none.push(await burst(base, s, 'c'));
    await setActive(base, s, ids, true);
    fifty.push(await burst(base, s, 'd'));
    const runs = await call(base, 'GET', `/automations/runs?automationId=${ids[0]}&limit=1`, s.headers);
    const bestNone = Math.max(...none);
    const bestFifty = Math.max(...fifty);
    process.stdout.write(
      `\n## automations (embedded PGlite, inline jobs, ${MESSAGES} messages per round from ${SENDERS} customers)\n`,
    );
    process.stdout.write(`pipeline without automations (messages/s): ${none.map((v) => v.toFixed(1)).join(', ')}\n`);
    process.stdout.write(
      `pipeline with ${RULES} active non-matching rules (messages/s): ${fifty.map((v) => v.toFixed(1)).join(', ')}\n`,
    );
    process.stdout.write(`ratio (best of each): ${((100 * bestFifty) / bestNone).toFixed(1)} % (goal ≥ 80 %)\n`);
    process.stdout.write(`runs logged: ${(runs.data as unknown[]).length > 0 ? 'yes' : 'NO'}\n`);
  } finally {
    await stop(child);
    replies.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
