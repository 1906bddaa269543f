/**
 * Ack throughput cost probe (session 22, issue 16 items 1–2; docs/performance.md "Session 22: ack
 * throughput"). Diagnosis only, not a bench module: PostgreSQL + Redis at 127.0.0.1 (as the bench),
 * one `api` and one `worker` process from `<root>/dist` (so two builds — old and new code — can be
 * compared in the same window), the bench's closed loop (50 connections, signed Custom Channel
 * messages) against the bare Express app and against ours, alternating `rounds` times, the pipeline
 * working on what was acknowledged (as in `bench/inbox.ts`). For every phase it prints one JSON line:
 * req/s and the CPU ms per request of each process from /proc/<pid>/stat — the api, the ack pool's
 * PostgreSQL backends, the worker, its backends, Redis, the load generator (this process) and the bare
 * app — and each one's share of a core (which one saturates).
 *
 *   npm run build && node bench/probes/ack-probe.js "$PWD" label [seconds] [rounds]
 *   ACK_PROF=/tmp/prof node bench/probes/ack-probe.js …   # + a CPU profile of the api, ours' phases only
 *   ACK_ENV='{"WORKER_NICE":"0"}' …                         # extra environment for both processes
 */
const root = process.argv[2];
if (!root) {
  console.error('usage: node bench/probes/ack-probe.js <checkout with dist/> [label] [seconds] [rounds]');
  process.exit(2);
}
const label = process.argv[3] ?? root;
const seconds = Number(process.argv[4] ?? 10);
const rounds = Number(process.argv[5] ?? 1);
const { readFileSync, writeFileSync, mkdtempSync } = require('node:fs');
const { randomBytes } = require('node:crypto');
const { join } = require('node:path');
const { execSync } = require('node:child_process');
const os = require('node:os');
const P = require(root + '/dist/bench/lib/pipeline.js');
const S = require(root + '/dist/bench/lib/service.js');
const L = require(root + '/dist/bench/lib/load.js');
const { Client } = require(root + '/node_modules/pg');

const HZ = 100;
function cpuOf(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / HZ; // ms
  } catch {
    return null;
  }
}
/** The api's main thread (its event loop): ms on a CPU and ms runnable but waiting for one. */
function schedOf(pid) {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { run: run / 1e6, wait: wait / 1e6 };
  } catch {
    return { run: 0, wait: 0 };
  }
}
const sum = (pids) => pids.reduce((a, pid) => a + (cpuOf(pid) ?? 0), 0);

/** Preloaded into the api with ACK_PROF: SIGWINCH starts the profiler, the next SIGWINCH writes the profile. */
const PROFILER = `
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');
const session = new Session(); session.connect();
let on = false, n = 0;
process.on('SIGWINCH', () => {
  if (!on) { session.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval: 200 }, () => session.post('Profiler.start'))); on = true; return; }
  on = false;
  session.post('Profiler.stop', (e, r) => { if (!e) writeFileSync(process.env.ACK_PROF + '/api-' + process.pid + '-' + (++n) + '.cpuprofile', JSON.stringify(r.profile)); });
});`;

(async () => {
  const adminUrl = 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = 'redis://127.0.0.1:6379';
  const redisPid = Number(execSync('pgrep -x redis-server').toString().trim().split('\n')[0]);
  const extra = process.env.ACK_ENV ? JSON.parse(process.env.ACK_ENV) : {};
  const nodeArgs = [];
  if (process.env.ACK_PROF) {
    const file = join(mkdtempSync(join(os.tmpdir(), 'ack-prof-')), 'profiler.js');
    writeFileSync(file, PROFILER);
    nodeArgs.push('--require', file);
  }
  await S.withDataDir((dir) =>
    S.withDatabase(adminUrl, async (url) => {
      const env = { ...S.commonEnv(dir), DATABASE_URL: url, REDIS_URL: redisUrl, QUEUE_PREFIX: `probe-${randomBytes(3).toString('hex')}`, ...extra };
      const service = await S.startService({ ...env, APP_ROLE: 'api', ...(process.env.ACK_PROF ? { ACK_PROF: process.env.ACK_PROF } : {}) }, undefined, nodeArgs);
      const worker = await S.startWorker(env);
      service.child.once('exit', (code, signal) => console.error('api exited', code, signal));
      worker.once('exit', (code, signal) => console.error('worker exited', code, signal));
      const replies = await P.sink();
      const baseline = await S.startBaseline();
      const db = await S.serviceDb(service);
      const mon = new Client({ connectionString: url });
      await mon.connect();
      try {
        const channel = await P.setupInbox(service, `${replies.url}/replies`);
        const dbname = url.slice(url.lastIndexOf('/') + 1);
        const own = [(await mon.query('select pg_backend_pid() p')).rows[0].p, (await db.query('select pg_backend_pid() p')).rows[0].p];
        const run = randomBytes(3).toString('hex');
        // Warm-up: both routes, then the pipeline drains.
        await L.load({ url: baseline.url, connections: 50, durationMs: 1500, build: P.signed(channel.secret, `w${run}`, 1000) });
        await L.load({ url: channel.url, connections: 50, durationMs: 1500, build: P.signed(channel.secret, `w${run}`, 1000) });
        await P.waitDrained(db, 600_000);
        // Backends: the ack pool's last statement is the INSERT; the rest of the database's are the worker's / api main pool.
        const backends = async () => {
          const { rows } = await mon.query(
            `select pid, query, application_name from pg_stat_activity where datname = $1 and pid <> all($2)`,
            [dbname, own],
          );
          return {
            ack: rows.filter((r) => r.query.startsWith('INSERT INTO inbound_events')).map((r) => r.pid),
            other: rows.filter((r) => !r.query.startsWith('INSERT INTO inbound_events')).map((r) => r.pid),
          };
        };
        const phase = async (name, target, build) => {
          const pg0 = await backends();
          const walwriter = Number(execSync("pgrep -f 'postgres: 15/main: walwriter'").toString().trim());
          const groups = {
            api: [service.child.pid],
            ackPg: pg0.ack,
            worker: [worker.pid],
            otherPg: pg0.other,
            redis: [redisPid],
            bare: [baseline.child.pid],
            walwriter: [walwriter],
          };
          const c0 = Object.fromEntries(Object.entries(groups).map(([k, pids]) => [k, sum(pids)]));
          const gen0 = process.cpuUsage();
          const sched0 = schedOf(service.child.pid);
          const load0 = os.loadavg()[0];
          if (process.env.ACK_PROF && name === 'ours') process.kill(service.child.pid, 'SIGWINCH');
          const r = await L.load({ url: target, connections: 50, durationMs: seconds * 1000, build });
          if (process.env.ACK_PROF && name === 'ours') process.kill(service.child.pid, 'SIGWINCH');
          const gen = process.cpuUsage(gen0);
          const sched1 = schedOf(service.child.pid);
          // Backends that appeared during the phase (new pool connections) count from 0.
          const pg1 = await backends();
          const c1 = Object.fromEntries(Object.entries(groups).map(([k, pids]) => [k, sum(pids)]));
          const added = (k) => sum(pg1[k].filter((pid) => !groups[k === 'ack' ? 'ackPg' : 'otherPg'].includes(pid)));
          const cpu = Object.fromEntries(Object.keys(groups).map((k) => [k, c1[k] - c0[k]]));
          cpu.ackPg += added('ack');
          cpu.otherPg += added('other');
          cpu.generator = (gen.user + gen.system) / 1000;
          const wall = r.durationMs;
          const perReq = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, +(v / r.ok).toFixed(3)]));
          const core = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, +(v / wall).toFixed(2)]));
          console.log(
            JSON.stringify({ label, phase: name, rps: Math.round(r.achieved), ok: r.ok, errors: r.errors + r.non2xx + r.timeouts, p99: +r.p99.toFixed(1), cpuMsPerReq: perReq, coreShare: core, apiLoop: { running: +((sched1.run - sched0.run) / wall).toFixed(2), waitingForCpu: +((sched1.wait - sched0.wait) / wall).toFixed(2) }, load: [load0.toFixed(1), os.loadavg()[0].toFixed(1)] }),
          );
          return r;
        };
        for (let i = 0; i < rounds; i++) {
          await phase('bare', baseline.url, P.signed(channel.secret, `b${run}${i}`, 1000));
          await phase('ours', channel.url, P.signed(channel.secret, `t${run}${i}`, 1000));
          if (i < rounds - 1) await P.waitDrained(db, 600_000);
        }
      } finally {
        await mon.end();
        await db.end();
        replies.server.close();
        await S.stop(baseline.child);
        await S.stop(service.child);
        await S.stop(worker);
      }
    }),
  );
  process.exit(0);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
