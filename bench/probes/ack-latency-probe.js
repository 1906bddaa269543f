/**
 * Ack latency tail probe (session 25, issue 16 items 1–2; docs/performance.md "Session 25: ack latency
 * tail"). Diagnosis only, not a bench module. Like ack-probe.js it starts one `api` and one `worker`
 * from `<root>/dist` on PostgreSQL + Redis at 127.0.0.1, but it measures the bench's OPEN loop (500
 * signed requests/s, the pipeline working off what was acknowledged, as bench/inbox.ts's latency
 * round) request by request: the generator records each request's due time, when it got a socket and
 * when its answer ended; the api (ack-trace-preload.js) records the server-side phases of the same
 * request (matched by an `x-probe-i` header), its event-loop delay and GC pauses; this process samples
 * the CPU of the worker, the round database's PostgreSQL backends, Redis and the api every 50 ms.
 * Prints, per round, one JSON line for the bare Express route and one for ours: client percentiles,
 * and for the requests slower than SLOW_MS (40) the mean of each phase, which phase was the largest,
 * and what the machine was doing meanwhile. `PROBE_OUT=<dir>` keeps the raw records.
 *
 *   node scripts/build.mjs && node bench/probes/ack-latency-probe.js "$PWD" label [seconds] [rounds]
 *   ACK_ENV='{"WORKER_NICE":"0"}' …   # extra environment for both processes
 *   PROBE_WAITS=1 …                    # also sample the ack backends' wait events every 10 ms
 *   PROBE_MODES=base,checkpoint …      # in turn per round; `checkpoint`: a CHECKPOINT just before our phase
 */
const root = process.argv[2];
if (!root) {
  console.error('usage: node bench/probes/ack-latency-probe.js <checkout with dist/> [label] [seconds] [rounds]');
  process.exit(2);
}
const label = process.argv[3] ?? root;
const seconds = Number(process.argv[4] ?? 10);
const rounds = Number(process.argv[5] ?? 1);
const RATE = Number(process.env.PROBE_RATE ?? 500);
const SLOW_MS = Number(process.env.SLOW_MS ?? 40);
const { readFileSync, writeFileSync, mkdtempSync, mkdirSync, rmSync } = require('node:fs');
const { randomBytes } = require('node:crypto');
const { dirname, join } = require('node:path');
const { execSync } = require('node:child_process');
const { Agent, request: httpRequest } = require('node:http');
const { performance, monitorEventLoopDelay } = require('node:perf_hooks');
const os = require('node:os');
const P = require(root + '/dist/bench/lib/pipeline.js');
const S = require(root + '/dist/bench/lib/service.js');
const { Client } = require(root + '/node_modules/pg');

const now = () => performance.timeOrigin + performance.now();
const HZ = 100;
function cpuOf(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / HZ;
  } catch {
    return null;
  }
}
const pct = (xs, p) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return +s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)].toFixed(1);
};
const mean = (xs) => (xs.length ? +(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(1) : null);

/** Open loop as bench/lib/load.ts, recording every request (due, socket, end) with an x-probe-i header. */
async function openLoop(url, rate, durationMs, build) {
  const u = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: 50 });
  const records = [];
  const interval = 1000 / rate;
  const total = Math.round((durationMs / 1000) * rate);
  const t0 = performance.now();
  const inflight = [];
  const send = (i, dueMono) =>
    new Promise((resolve) => {
      const r = { i, due: performance.timeOrigin + dueMono, call: now() };
      records.push(r);
      const spec = build(i);
      const req = httpRequest(
        {
          agent,
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          headers: { ...spec.headers, 'content-length': Buffer.byteLength(spec.body), 'x-probe-i': String(i) },
        },
        (res) => {
          res.resume();
          res.once('end', () => {
            r.end = now();
            r.status = res.statusCode;
            resolve();
          });
        },
      );
      req.once('socket', () => (r.socket = now()));
      req.once('error', () => {
        r.end = now();
        r.status = 0;
        resolve();
      });
      req.end(spec.body);
    });
  let i = 0;
  await new Promise((resolve) => {
    const tick = () => {
      const t = performance.now();
      while (i < total && t0 + i * interval <= t) {
        inflight.push(send(i, t0 + i * interval));
        i++;
      }
      if (i >= total) resolve();
      else setTimeout(tick, Math.max(0, Math.min(1, t0 + i * interval - performance.now())));
    };
    tick();
  });
  await Promise.all(inflight);
  agent.destroy();
  return records;
}

(async () => {
  const adminUrl = 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.PROBE_REDIS_URL ?? 'redis://127.0.0.1:6379/6';
  const redisPid = Number(execSync('pgrep -x redis-server').toString().trim().split('\n')[0]);
  const extra = process.env.ACK_ENV ? JSON.parse(process.env.ACK_ENV) : {};
  const out = process.env.PROBE_OUT;
  if (out) mkdirSync(out, { recursive: true });
  const traceFile = join(mkdtempSync(join(os.tmpdir(), 'ack-trace-')), 'trace.json');
  const genEld = monitorEventLoopDelay({ resolution: 1 });
  await S.withDataDir((dir) =>
    S.withDatabase(adminUrl, async (url) => {
      const env = { ...S.commonEnv(dir), DATABASE_URL: url, REDIS_URL: redisUrl, QUEUE_PREFIX: `probe-${randomBytes(3).toString('hex')}`, ...extra };
      const service = await S.startService({ ...env, APP_ROLE: 'api', ACK_TRACE_FILE: traceFile }, undefined, ['--require', join(__dirname, 'ack-trace-preload.js'), ...(process.env.API_NODE_ARGS ?? '').split(' ').filter(Boolean)]);
      const worker = await S.startWorker(env);
      service.child.once('exit', (code, signal) => console.error('api exited', code, signal));
      worker.once('exit', (code, signal) => console.error('worker exited', code, signal));
      const replies = await P.sink();
      const baseline = await S.startBaseline();
      const db = await S.serviceDb(service);
      const { Redis } = require(root + '/node_modules/ioredis');
      const redis = new Redis(redisUrl);
      const mon = new Client({ connectionString: url });
      await mon.connect();
      const dbname = url.slice(url.lastIndexOf('/') + 1);
      const own = [(await mon.query('select pg_backend_pid() p')).rows[0].p, (await db.query('select pg_backend_pid() p')).rows[0].p];
      try {
        const channel = await P.setupInbox(service, `${replies.url}/replies`);
        const run = randomBytes(3).toString('hex');
        // Warm-up (without x-probe-i: not traced), then the pipeline drains.
        const L = require(root + '/dist/bench/lib/load.js');
        await L.load({ url: baseline.url, connections: 50, durationMs: 1500, build: P.signed(channel.secret, `w${run}`, 1000) });
        await L.load({ url: channel.url, connections: 50, durationMs: 1500, build: P.signed(channel.secret, `w${run}`, 1000) });
        await P.waitDrained(db, 600_000);
        for (let round = 0; round < rounds; round++) {
          for (const phase of ['bare', 'ours']) {
            // CPU samplers: every 50 ms, the worker, the database's backends (ack pool separately), Redis, the api.
            let backends = { ack: [], other: [] };
            const refresh = async () => {
              const { rows } = await mon.query(`select pid, query from pg_stat_activity where datname = $1 and pid <> all($2)`, [dbname, own]);
              backends = {
                ack: rows.filter((r) => r.query.startsWith('INSERT INTO inbound_events')).map((r) => r.pid),
                other: rows.filter((r) => !r.query.startsWith('INSERT INTO inbound_events')).map((r) => r.pid),
              };
            };
            await refresh();
            const samples = [];
            const last = new Map();
            const delta = (key, pids) => {
              let d = 0;
              for (const pid of pids) {
                const c = cpuOf(pid);
                if (c === null) continue;
                const k = `${key}:${pid}`;
                if (last.has(k)) d += c - last.get(k);
                last.set(k, c);
              }
              return d;
            };
            const sample = () =>
              samples.push({
                t: now(),
                api: delta('api', [service.child.pid]),
                worker: delta('worker', [worker.pid]),
                ackPg: delta('pg', backends.ack),
                otherPg: delta('pg', backends.other),
                redis: delta('redis', [redisPid]),
                bare: delta('bare', [baseline.child.pid]),
              });
            sample();
            const timer = setInterval(sample, 50);
            const refresher = setInterval(() => void refresh().catch(() => undefined), 500);
            const waits = {};
            let waitTimer = null;
            if (process.env.PROBE_WAITS && phase === 'ours') {
              const wmon = new Client({ connectionString: url });
              await wmon.connect();
              let busy = false;
              waitTimer = setInterval(async () => {
                if (busy) return;
                busy = true;
                const { rows } = await wmon
                  .query(`select coalesce(wait_event_type || ':' || wait_event, 'CPU') w from pg_stat_activity where state = 'active' and query like 'INSERT INTO inbound_events%' and datname = $1`, [dbname])
                  .catch(() => ({ rows: [] }));
                for (const r of rows) waits[r.w] = (waits[r.w] ?? 0) + 1;
                busy = false;
              }, 10);
              waitTimer.client = wmon;
            }
            // PROBE_MODES=base,yield,stop (one per round, in turn): `stop` stops the worker (SIGSTOP) during
            // our phase — acks without the pipeline; `yield` sets the inbound queue's yield flag itself
            // during our phase (as an api does above PIPELINE_YIELD_ACK_RATE), so the worker runs at
            // PIPELINE_YIELD_CONCURRENCY.
            const modes = (process.env.PROBE_MODES ?? 'base').split(',');
            const mode = modes[round % modes.length];
            const stopWorker = phase === 'ours' && mode === 'stop';
            if (stopWorker) process.kill(worker.pid, 'SIGSTOP');
            let flagTimer = null;
            if (phase === 'ours' && mode === 'yield') {
              const key = `${env.QUEUE_PREFIX}:inbound:yield`;
              const setFlag = () => void redis.set(key, '1', 'PX', 1000).catch(() => undefined);
              setFlag();
              flagTimer = setInterval(setFlag, 250);
              await new Promise((r) => setTimeout(r, 700)); // the worker reads it every 250 ms
            }
            // The api's trace starts afresh with our phase (set-up, warm-up and the bare phase left out).
            if (phase === 'ours') {
              process.kill(service.child.pid, 'SIGWINCH');
              await new Promise((r) => setTimeout(r, 200));
            }
            // `checkpoint`: a CHECKPOINT just before our phase, so the phase runs in the full-page-write
            // storm that follows one (every page's first change after it logs the whole 8 kB page).
            if (phase === 'ours' && mode === 'checkpoint') await mon.query('CHECKPOINT');
            const lsn0 = (await mon.query('select pg_current_wal_lsn() l')).rows[0].l;
            genEld.reset();
            genEld.enable();
            const load0 = os.loadavg()[0];
            const target = phase === 'bare' ? baseline.url : channel.url;
            const build = P.signed(channel.secret, `${phase[0]}${run}${round}`, 1000);
            const started = now();
            const records = await openLoop(target, RATE, seconds * 1000, build);
            genEld.disable();
            if (stopWorker) process.kill(worker.pid, 'SIGCONT');
            if (flagTimer) clearInterval(flagTimer);
            clearInterval(timer);
            clearInterval(refresher);
            if (waitTimer) {
              clearInterval(waitTimer);
              await waitTimer.client.end();
            }
            sample();
            const walMB = Number((await mon.query('select pg_wal_lsn_diff(pg_current_wal_lsn(), $1) d', [lsn0])).rows[0].d) / 1048576;
            const lat = records.map((r) => r.end - r.due);
            const result = {
              label,
              round,
              phase,
              mode,
              load: [load0.toFixed(2), os.loadavg()[0].toFixed(2)],
              n: records.length,
              errors: records.filter((r) => r.status !== 200).length,
              p50: pct(lat, 50),
              p99: pct(lat, 99),
              max: pct(lat, 100),
              slow: lat.filter((x) => x > SLOW_MS).length,
              generatorLoopDelayP99: +(genEld.percentile(99) / 1e6).toFixed(1),
              generatorLoopDelayMax: +(genEld.max / 1e6).toFixed(1),
              walMB: +walMB.toFixed(1), // the whole cluster's WAL during the phase
            };
            const cpu = {};
            for (const k of ['api', 'worker', 'ackPg', 'otherPg', 'redis', 'bare'])
              cpu[k] = +(samples.reduce((a, s) => a + s[k], 0) / (now() - started)).toFixed(2); // share of a core
            result.coreShare = cpu;
            if (phase === 'ours') {
              process.kill(service.child.pid, 'SIGWINCH');
              await new Promise((r) => setTimeout(r, 500));
              const trace = JSON.parse(readFileSync(traceFile, 'utf8'));
              const server = new Map(trace.reqs.map((r) => [r.i, r]));
              const phases = ['queue', 'toServer', 'body', 'lookup', 'gcWait', 'pool', 'insert', 'answer', 'send', 'toClient'];
              const split = (c, s) => ({
                queue: (c.socket ?? c.end) - c.due, // generator late + waiting for a free socket
                toServer: s.req - c.socket, // socket written → server's request event
                body: s.answer - s.req,
                lookup: s.buf - s.answer, // HMAC, connection look-up
                gcWait: s.flush - s.buf, // waiting for a group-commit slot
                pool: (s.query ?? s.done) - s.flush, // ack pool connection
                insert: s.done - (s.query ?? s.flush), // INSERT + COMMIT round trip
                answer: s.write - s.done, // resolved → writeHead
                send: s.finish - s.write,
                toClient: c.end - s.finish,
              });
              const rows = [];
              for (const c of records) {
                const s = server.get(c.i);
                if (!s || !s.req || !s.done || !s.write || !s.finish || !s.buf || !s.flush) continue;
                rows.push({ c, s, lat: c.end - c.due, ph: split(c, s) });
              }
              const slowRows = rows.filter((r) => r.lat > SLOW_MS);
              const fastRows = rows.filter((r) => r.lat <= SLOW_MS);
              const summary = (set) => {
                const o = {};
                for (const p of phases) o[p] = mean(set.map((r) => r.ph[p]));
                return o;
              };
              const dominant = {};
              for (const r of slowRows) {
                const top = phases.reduce((a, b) => (r.ph[a] >= r.ph[b] ? a : b));
                dominant[top] = (dominant[top] ?? 0) + 1;
              }
              // What overlapped the slow requests: the api's worst loop delay, GC, and the CPU of others.
              const overlap = (r) => {
                const a = r.c.due;
                const b = r.c.end;
                const w = trace.windows.filter((x) => x.t >= a && x.t - 50 <= b);
                const g = trace.gcs.filter((x) => x.t + x.ms >= a && x.t <= b);
                const cs = samples.filter((x) => x.t >= a && x.t - 50 <= b);
                const span = Math.max(50, cs.length * 50);
                return {
                  loopMax: Math.max(0, ...w.map((x) => x.max)),
                  gcMs: g.reduce((acc, x) => acc + x.ms, 0),
                  workerPlusPg: cs.reduce((acc, x) => acc + x.worker + x.otherPg, 0) / span,
                  apiCpu: cs.reduce((acc, x) => acc + x.api, 0) / span,
                };
              };
              const ov = (set) => {
                const o = set.map(overlap);
                return {
                  apiLoopDelayMax: mean(o.map((x) => x.loopMax)),
                  gcMsDuring: mean(o.map((x) => x.gcMs)),
                  workerPlusPipelinePgCore: mean(o.map((x) => x.workerPlusPg * 100)) / 100,
                  apiCore: mean(o.map((x) => x.apiCpu * 100)) / 100,
                };
              };
              result.matched = rows.length;
              result.slowPhasesMean = summary(slowRows);
              result.fastPhasesMean = summary(fastRows);
              result.slowDominantPhase = dominant;
              result.slowOverlap = ov(slowRows);
              result.fastOverlap = ov(fastRows);
              result.server = {
                serverP50: pct(rows.map((r) => r.s.finish - r.s.req), 50),
                serverP99: pct(rows.map((r) => r.s.finish - r.s.req), 99),
                storeP50: pct(rows.map((r) => r.s.done - r.s.buf), 50), // slot wait + pool + INSERT/COMMIT
                storeP99: pct(rows.map((r) => r.s.done - r.s.buf), 99),
                insertP50: pct(rows.map((r) => r.ph.insert), 50),
                insertP99: pct(rows.map((r) => r.ph.insert), 99),
                gcWaitP99: pct(rows.map((r) => r.ph.gcWait), 99),
                rowsPerFlushMean: mean(trace.flushes.map((f) => f.rows)),
                flushes: trace.flushes.length,
                apiLoopDelayP99ofWindows: pct(trace.windows.map((w) => w.max), 99),
                apiLoopDelayMedianOfWindows: pct(trace.windows.map((w) => w.max), 50),
                gcCount: trace.gcs.length,
                gcMsTotal: +trace.gcs.reduce((a, g) => a + g.ms, 0).toFixed(1),
                gcMsMax: +Math.max(0, ...trace.gcs.map((g) => g.ms)).toFixed(1),
                scavenges: trace.gcs.filter((g) => g.kind === 1).length,
                scavengeMsP50: pct(trace.gcs.filter((g) => g.kind === 1).map((g) => g.ms), 50),
                heap: trace.heap,
              };
              if (process.env.PROBE_WAITS) result.ackBackendWaits = waits;
              if (out) writeFileSync(join(out, `${label}-${round}.json`), JSON.stringify({ records, trace, samples, result }));
            }
            console.log(JSON.stringify(result));
          }
          await P.waitDrained(db, 600_000);
        }
      } finally {
        await mon.end();
        await db.end();
        redis.disconnect();
        rmSync(dirname(traceFile), { recursive: true, force: true });
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
