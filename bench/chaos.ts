/**
 * `npm run chaos` (issue 9 item 6): faults while signed Custom Channel messages arrive, and a check
 * that nothing acknowledged is lost or duplicated. Bounded in time, loopback only, and it starts its
 * OWN PostgreSQL (initdb into a temp dir, pg_ctl on a free port) and its own redis-server, so
 * restarting or stopping them cannot touch anyone else's database or Redis. Needs the PostgreSQL
 * server binaries (`PG_BIN`, else the newest /usr/lib/postgresql/<v>/bin) and `redis-server`.
 *
 *   npm run chaos                 # full bursts
 *   npm run chaos -- --short      # small bursts, < 90 s on a quiet machine (CI; also CHAOS_SHORT=1)
 *   CHAOS_ONLY=1,3 npm run chaos  # only those scenarios
 *
 * Scenarios (each on its own Custom Channel, a burst from several senders with unique message ids,
 * the fault injected a third of the way through, then a wait for processing):
 *   1. kill -9 of the single process (APP_ROLE=all), restarted at once;
 *   2. Redis stopped (the service keeps acknowledging through its in-process fallback), restarted;
 *   3. api + worker processes, the worker kill -9'd, restarted;
 *   4. PostgreSQL restarted (`pg_ctl restart -m fast`);
 *   5. PostgreSQL crashed (`pg_ctl stop -m immediate`, started again: crash recovery). WAL still in
 *      the server's buffers is lost — the inbound pipeline's asynchronous commits (session 22) —
 *      while every synchronous commit (the acks) had reached the kernel.
 * Per scenario: acknowledged (HTTP 200), stored (inbound_events rows of those ids), processed
 * (messages stored in conversations), lost (acknowledged but not stored, or not processed within the
 * wait), duplicated (an id stored or processed twice). Exit code 1 on any lost or duplicated.
 *
 * The service runs with a 1 s recovery sweep and short stale thresholds (INBOUND_STALE_*_MS) so
 * recovery fits in the wait; the mechanisms are the production ones.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { type AddressInfo, Socket } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import {
  type Service,
  adminSession,
  call,
  commonEnv,
  freePort,
  startService,
  startWorker,
  stop,
  withDataDir,
} from './lib/service';

const SHORT = process.argv.includes('--short') || process.env.CHAOS_SHORT === '1';
const BURST = SHORT ? 90 : 1_200;
const RATE = SHORT ? 45 : 120; // messages per second, open loop
const SENDERS = SHORT ? 6 : 24;
const IN_FLIGHT = 32;
const FAULT_AT = 1 / 3;
const DOWN_MS = SHORT ? 1_500 : 5_000;
const WAIT_MS = SHORT ? 45_000 : 180_000;

const log = (message: string): void => {
  process.stderr.write(`[chaos ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// A private PostgreSQL and a private Redis

function pgBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0])
    throw new Error('no PostgreSQL server binaries (set PG_BIN to the directory holding initdb and pg_ctl)');
  return join(root, versions[0], 'bin');
}

/** initdb refuses to run as root: as root, the cluster belongs to the `postgres` user. */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

function run(command: string, args: string[]): void {
  const [cmd, argv] = asPostgres(command, args);
  const result = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.stdout}`);
}

class PrivatePostgres {
  private constructor(
    private readonly root: string,
    private readonly bin: string,
    readonly port: number,
  ) {}

  get data(): string {
    return join(this.root, 'data');
  }

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  static async start(): Promise<PrivatePostgres> {
    const root = mkdtempSync(join(tmpdir(), 'sis-chaos-pg-'));
    if (process.getuid?.() === 0) {
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
      chownSync(root, uid, gid);
    }
    const pg = new PrivatePostgres(root, pgBin(), await freePort());
    run(join(pg.bin, 'initdb'), ['-D', pg.data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-instructions']);
    pg.pgCtl('start');
    return pg;
  }

  /**
   * pg_ctl with this cluster's options: loopback TCP on a free port, its socket in the temp dir.
   * fsync is off: the machine never crashes here, only PostgreSQL's processes (an immediate stop
   * keeps what a commit wrote to the kernel, and loses what was still in the server's WAL buffers).
   */
  pgCtl(action: 'start' | 'restart' | 'stop', mode = 'fast'): void {
    const options = `-p ${this.port} -k ${this.root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    const args = ['-D', this.data, '-l', join(this.root, 'log'), '-w', '-t', '60', '-m', mode];
    run(join(this.bin, 'pg_ctl'), action === 'stop' ? [...args, 'stop'] : [...args, '-o', options, action]);
  }

  destroy(): void {
    try {
      this.pgCtl('stop', 'immediate');
    } catch {
      // already stopped
    }
    rmSync(this.root, { recursive: true, force: true });
  }
}

async function redisAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });
}

class PrivateRedis {
  private child: ChildProcess | null = null;
  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.up();
    return redis;
  }

  /** Starts redis-server on this port, without persistence (a restart comes back empty). */
  async up(): Promise<void> {
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 100; i++) {
      if (await redisAnswers(this.port)) return;
      await sleep(50);
    }
    throw new Error('redis-server did not start');
  }

  async down(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  kill(): void {
    this.child?.kill('SIGKILL');
  }
}

// ---------------------------------------------------------------------------------------------
// The burst

interface Target {
  /** The api's current base URL (changes when the process is restarted). */
  base: string;
}

interface Channel {
  readonly id: string;
  readonly secret: string;
}

interface BurstResult {
  readonly sent: number;
  readonly acked: Set<string>;
  readonly refused: number;
  /** Answers other than 200, by status (or `error` for no answer). */
  readonly other: Map<string, number>;
}

function signedMessage(channel: Channel, tag: string, i: number): { body: string; signature: string; id: string } {
  const id = `${tag}-${i}`;
  const body = JSON.stringify({
    senderId: `${tag}-sender-${i % SENDERS}`,
    senderName: `Chaos customer ${i % SENDERS}`,
    text: `chaos ${id}`,
    messageId: id,
  });
  return { body, id, signature: `sha256=${createHmac('sha256', channel.secret).update(body).digest('hex')}` };
}

/**
 * Sends BURST messages at RATE (open loop). `fault` starts when a third of them are due; sending
 * goes on while it happens (a sender does not know), and the last third waits for the fault step to
 * finish (restart included), so every scenario has messages before, during and after the fault.
 */
async function burst(
  target: Target,
  channel: Channel,
  tag: string,
  fault: () => Promise<void>,
): Promise<{ result: BurstResult; fault: Promise<void> }> {
  const acked = new Set<string>();
  let refused = 0;
  const other = new Map<string, number>();
  let inFlight = 0;
  const pending: Promise<void>[] = [];
  let faultDone: Promise<void> = Promise.resolve();
  let start = performance.now();
  for (let i = 0; i < BURST; i++) {
    if (i === Math.floor(BURST * FAULT_AT)) faultDone = fault();
    if (i === Math.floor(BURST * 2 * FAULT_AT)) {
      const waitedFrom = performance.now();
      await faultDone.catch(() => undefined);
      start += performance.now() - waitedFrom;
    }
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    while (inFlight >= IN_FLIGHT) await sleep(5);
    const message = signedMessage(channel, tag, i);
    inFlight++;
    pending.push(
      fetch(`${target.base}/custom-channel/${channel.id}/inbound`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': message.signature },
        body: message.body,
        signal: AbortSignal.timeout(10_000),
      })
        .then(async (res) => {
          await res.arrayBuffer();
          if (res.status === 200) acked.add(message.id);
          else {
            refused++;
            other.set(String(res.status), (other.get(String(res.status)) ?? 0) + 1);
          }
        })
        .catch((error: Error & { cause?: { code?: string } }) => {
          refused++;
          const why = `no answer (${error.cause?.code ?? error.name})`;
          if (process.env.CHAOS_DEBUG) log(`  ${i} ${target.base}: ${why} ${String(error.cause ?? error)}`);
          other.set(why, (other.get(why) ?? 0) + 1);
        })
        .finally(() => void inFlight--),
    );
  }
  await Promise.all(pending);
  return { result: { sent: BURST, acked, refused, other }, fault: faultDone };
}

// ---------------------------------------------------------------------------------------------
// Counting

interface Counts {
  readonly stored: number;
  readonly processed: number;
  readonly lost: number;
  readonly duplicated: number;
  readonly storedUnacked: number;
  readonly failedEvents: number;
}

async function count(db: Client, channel: Channel, acked: Set<string>): Promise<Counts> {
  const events = await db.query<{ id: string; n: number; failed: boolean }>(
    `SELECT payload->>'messageId' AS id, count(*)::int AS n, bool_or(status = 'FAILED') AS failed
       FROM inbound_events WHERE channel_id = $1 GROUP BY 1`,
    [channel.id],
  );
  const messages = await db.query<{ id: string; n: number }>(
    `SELECT substr(text, 7) AS id, count(*)::int AS n
       FROM messages WHERE channel_id = $1 AND direction = 'INBOUND' GROUP BY 1`,
    [channel.id],
  );
  const storedIds = new Map(events.rows.map((r) => [r.id, r.n]));
  const processedIds = new Map(messages.rows.map((r) => [r.id, r.n]));
  let stored = 0;
  let processed = 0;
  let lost = 0;
  for (const id of acked) {
    const isStored = storedIds.has(id);
    const isProcessed = processedIds.has(id);
    if (isStored) stored++;
    if (isProcessed) processed++;
    if (!isStored || !isProcessed) lost++;
  }
  const duplicated = new Set([
    ...events.rows.filter((r) => r.n > 1).map((r) => r.id),
    ...messages.rows.filter((r) => r.n > 1).map((r) => r.id),
  ]).size;
  return {
    stored,
    processed,
    lost,
    duplicated,
    storedUnacked: events.rows.filter((r) => !acked.has(r.id)).length,
    failedEvents: events.rows.filter((r) => r.failed).length,
  };
}

/** Polls until every acknowledged id is processed (or the wait ends); returns the time it took. */
async function waitProcessed(db: Client, channel: Channel, acked: Set<string>): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < WAIT_MS) {
    try {
      const counts = await count(db, channel, acked);
      if (counts.processed === acked.size && counts.stored === acked.size) break;
    } catch {
      // PostgreSQL may be restarting; the client reconnects below
    }
    await sleep(250);
  }
  return Date.now() - started;
}

// ---------------------------------------------------------------------------------------------
// Scenarios

interface Env {
  readonly pg: PrivatePostgres;
  readonly redis: PrivateRedis;
  readonly dataDir: string;
  readonly sinkUrl: string;
}

interface Running {
  readonly target: Target;
  /** Processes to stop at the end (replaced on restart). */
  api: Service;
  worker: ChildProcess | null;
}

interface Scenario {
  readonly name: string;
  readonly split: boolean;
  fault(env: Env, running: Running, serviceEnv: Record<string, string>): Promise<void>;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'kill -9 of the single process (all), restart',
    split: false,
    async fault(_env, running, serviceEnv) {
      running.api.child.kill('SIGKILL');
      log('  killed the service (SIGKILL); restarting');
      running.api = await startService({ ...serviceEnv, APP_ROLE: 'all' });
      running.target.base = running.api.base;
      log('  service back');
    },
  },
  {
    name: 'Redis stopped, started again',
    split: false,
    async fault(env) {
      await env.redis.down();
      log(`  Redis stopped for ${DOWN_MS} ms`);
      await sleep(DOWN_MS);
      await env.redis.up();
      log('  Redis back (empty: no persistence)');
    },
  },
  {
    name: 'api + worker, worker kill -9, restart',
    split: true,
    async fault(_env, running, serviceEnv) {
      running.worker?.kill('SIGKILL');
      log('  killed the worker (SIGKILL); restarting');
      await sleep(DOWN_MS);
      running.worker = await startWorker(serviceEnv);
      log('  worker back');
    },
  },
  {
    name: 'PostgreSQL restarted (pg_ctl restart -m fast)',
    split: false,
    async fault(env) {
      log('  restarting PostgreSQL');
      env.pg.pgCtl('restart', 'fast');
      log('  PostgreSQL back');
    },
  },
  {
    name: 'PostgreSQL crashed (pg_ctl stop -m immediate), started',
    split: false,
    async fault(env) {
      log('  crashing PostgreSQL (immediate stop: no checkpoint, unwritten WAL lost)');
      env.pg.pgCtl('stop', 'immediate');
      env.pg.pgCtl('start');
      log('  PostgreSQL back (crash recovery done)');
    },
  },
];

interface Row {
  readonly scenario: string;
  readonly sent: number;
  readonly acked: number;
  readonly counts: Counts | null;
  readonly refused: number;
  readonly other: string;
  readonly drainMs: number;
  readonly error?: string;
}

/** The `all` process, kept from one single-process scenario to the next (fewer cold starts). */
interface Shared {
  all: Service | null;
}

function serviceEnvOf(env: Env): Record<string, string> {
  return {
    ...commonEnv(env.dataDir),
    DATABASE_URL: env.pg.url('chaos'),
    REDIS_URL: env.redis.url,
    QUEUE_PREFIX: 'chaos',
    // Recovery on a short clock, so the run is bounded (the defaults are 30 s, 60 s and 120 s).
    INBOUND_SWEEP_TICK_MS: '1000',
    INBOUND_STALE_RECEIVED_MS: '3000',
    INBOUND_STALE_PROCESSING_MS: '8000',
    INBOUND_RETRY_DELAYS: '1,2,3,5',
  };
}

async function runScenario(env: Env, scenario: Scenario, index: number, shared: Shared): Promise<Row> {
  const serviceEnv = serviceEnvOf(env);
  let api: Service;
  if (scenario.split) {
    await stop(shared.all?.child);
    shared.all = null;
    api = await startService({ ...serviceEnv, APP_ROLE: 'api' });
  } else {
    api = shared.all ?? (await startService({ ...serviceEnv, APP_ROLE: 'all' }));
  }
  const running: Running = { target: { base: api.base }, api, worker: null };
  const db = new Client({ connectionString: env.pg.url('chaos') });
  let ok = false;
  try {
    if (scenario.split) running.worker = await startWorker(serviceEnv);
    const admin = await adminSession(api.base);
    const secret = randomBytes(24).toString('hex');
    const connected = await call(api.base, 'POST', '/channels/connect', admin.headers, {
      type: 'CUSTOM',
      displayName: `Chaos ${index}`,
      inboundSecret: secret,
      outboundUrl: env.sinkUrl,
    });
    const channel: Channel = { id: String(connected.id), secret };
    const tag = `c${index}${randomBytes(2).toString('hex')}`;
    log(`scenario ${index}: ${scenario.name} — ${BURST} messages at ${RATE}/s from ${SENDERS} senders`);
    const { result, fault } = await burst(running.target, channel, tag, () =>
      scenario.fault(env, running, serviceEnv).catch((error: unknown) => {
        log(`  fault step failed: ${String(error)}`);
        throw error;
      }),
    );
    await fault;
    if (running.api.child.exitCode !== null || running.api.child.signalCode !== null)
      log(`  the api process exited during the burst (${running.api.child.exitCode ?? running.api.child.signalCode})`);
    log(`  burst done: ${result.acked.size} of ${result.sent} acknowledged; waiting for processing`);
    db.on('error', () => undefined);
    await db.connect();
    const drainMs = await waitProcessed(db, channel, result.acked);
    const counts = await count(db, channel, result.acked);
    ok = true;
    return {
      scenario: `${index}. ${scenario.name}`,
      sent: result.sent,
      acked: result.acked.size,
      counts,
      refused: result.refused,
      other: [...result.other].map(([status, n]) => `${n}× ${status}`).join(', '),
      drainMs,
    };
  } finally {
    await db.end().catch(() => undefined);
    await stop(running.worker);
    if (scenario.split || !ok) {
      await stop(running.api.child);
      shared.all = null;
    } else shared.all = running.api;
  }
}

function render(rows: Row[]): string {
  const header = ['scenario', 'sent', 'acknowledged', 'stored', 'processed', 'lost', 'duplicated', 'note'];
  const lines = rows.map((r) => [
    r.scenario,
    String(r.sent),
    String(r.acked),
    r.counts ? String(r.counts.stored) : '-',
    r.counts ? String(r.counts.processed) : '-',
    r.counts ? String(r.counts.lost) : '-',
    r.counts ? String(r.counts.duplicated) : '-',
    r.error
      ? `did not complete: ${r.error}`
      : `${r.refused} not acknowledged${r.other ? ` (${r.other})` : ''}, ${r.counts!.storedUnacked} stored without an ack, ` +
        `${r.counts!.failedEvents} FAILED events, waited ${(r.drainMs / 1000).toFixed(1)} s`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [fmt(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(fmt)].join('\n');
}

async function main(): Promise<void> {
  const started = Date.now();
  const load = loadavg().map((l) => l.toFixed(2));
  log(`private PostgreSQL (${pgBin()}) and redis-server on free loopback ports${SHORT ? ' — short mode' : ''}`);
  const pg = await PrivatePostgres.start();
  const redis = await PrivateRedis.start();
  const cleanup = (): void => {
    redis.kill();
    pg.destroy();
  };
  process.once('exit', cleanup);
  const sink: Server = createServer((req, res) => {
    req.resume();
    req.once('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/replies`;
  const rows: Row[] = [];
  try {
    const admin = new Client({ connectionString: pg.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE chaos');
    await admin.end();
    await withDataDir(async (dataDir) => {
      const env: Env = { pg, redis, dataDir, sinkUrl };
      const shared: Shared = { all: null };
      // The single-process scenarios first (they share one `all` process), then api + worker.
      const only = (process.env.CHAOS_ONLY ?? '').split(',').filter(Boolean).map(Number);
      const order = [...SCENARIOS.entries()]
        .filter(([i]) => only.length === 0 || only.includes(i + 1))
        .sort(([, x], [, y]) => Number(x.split) - Number(y.split));
      for (const [i, scenario] of order) {
        try {
          rows[i] = await runScenario(env, scenario, i + 1, shared);
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          log(`scenario ${i + 1} did not complete: ${message}`);
          rows[i] = {
            scenario: `${i + 1}. ${scenario.name}`,
            sent: BURST,
            acked: 0,
            counts: null,
            refused: 0,
            other: '',
            drainMs: 0,
            error: message,
          };
        }
      }
      await stop(shared.all?.child);
    });
  } finally {
    sink.close();
    process.removeListener('exit', cleanup);
    cleanup();
  }
  process.stdout.write(`\n${render(rows.filter(Boolean))}\n\n`);
  process.stdout.write(
    `${SHORT ? 'short mode, ' : ''}${BURST} messages per scenario at ${RATE}/s; ${((Date.now() - started) / 1000).toFixed(0)} s in all; ` +
      `load average before ${load.join(' ')}, after ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
  );
  const bad = rows.filter((r) => r.error || !r.counts || r.counts.lost > 0 || r.counts.duplicated > 0);
  if (bad.length) {
    process.stderr.write(`chaos: ${bad.length} scenario(s) lost, duplicated or did not complete\n`);
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
