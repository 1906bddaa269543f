/**
 * Pipeline cost probe (session 21, issue 16 item 3; docs/performance.md "Session 21: pipeline
 * throughput"). Diagnosis only, not a bench module: PostgreSQL + Redis at 127.0.0.1 (as the bench),
 * one `api` and one `worker` process from `<root>/dist` (so two builds — old and new code — can be
 * compared in the same window), a 200-message warm-up, then N messages from S new customers.
 * Prints one JSON line (rate, statements / Redis commands / worker CPU per message, and the CPU of
 * every PostgreSQL backend of the round's database per message, from /proc/<pid>/stat — the server
 * must run on this machine), then the wait events sampled from pg_stat_activity every 0.1 s and the
 * statements that grew most.
 *
 *   npm run build && node bench/probes/pipeline-probe.js "$PWD" 3000 300 label
 *   BENCH_CPU_PROF=/tmp/prof node bench/probes/pipeline-probe.js …   # + a CPU profile of the worker
 *   PROBE_ENV='{"PIPELINE_YIELD_ACK_RATE":"0"}' node bench/probes/pipeline-probe.js …   # + environment
 */
const root = process.argv[2];
if (!root) {
  console.error('usage: node bench/probes/pipeline-probe.js <checkout with dist/> [messages] [senders] [label]');
  process.exit(2);
}
const messages = Number(process.argv[3] ?? 3000);
const senders = Number(process.argv[4] ?? 300);
const label = process.argv[5] ?? root;
const { readFileSync } = require('node:fs');
const { randomBytes } = require('node:crypto');
const P = require(root + '/dist/bench/lib/pipeline.js');
const S = require(root + '/dist/bench/lib/service.js');
const { Client } = require(root + '/node_modules/pg');
const os = require('node:os');

function cpuOf(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // ms (100 Hz)
  } catch { return null; }
}

(async () => {
  const ctx = { short: false, databaseUrl: 'postgres://postgres@127.0.0.1:5432/postgres', redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', embedded: false, log: (m) => console.error(m) };
  // PROBE_ENV='{"PIPELINE_YIELD_ACK_RATE":"0"}': more environment for the api and worker.
  const env = process.env.PROBE_ENV ? JSON.parse(process.env.PROBE_ENV) : undefined;
  await P.forEachEngine(ctx, { countStatements: true, env }, async (p) => {
    const replies = await P.sink();
    const db = await S.serviceDb(p.service);
    const mon = new Client({ connectionString: p.service.env.DATABASE_URL });
    await mon.connect();
    try {
      const channel = await P.setupInbox(p.service, `${replies.url}/replies`);
      const dbname = (await mon.query('select current_database() d')).rows[0].d;
      const myPid = (await mon.query('select pg_backend_pid() p')).rows[0].p;
      const dbPid = (await db.query('select pg_backend_pid() p')).rows[0].p;
      // warm-up: 200 messages from 20 senders
      await P.burst(p, db, channel, `w${randomBytes(2).toString('hex')}`, 200, 20);
      const pids = async () => (await mon.query('select pid from pg_stat_activity where datname=$1 and pid not in ($2,$3)', [dbname, myPid, dbPid])).rows.map((r) => r.pid);
      const start = new Map();
      for (const pid of await pids()) start.set(pid, cpuOf(pid));
      const waits = new Map();
      let sampling = true, samples = 0;
      const sampler = (async () => {
        while (sampling) {
          const { rows } = await mon.query(`select coalesce(wait_event_type,'CPU')||'/'||coalesce(wait_event,'-') w, left(regexp_replace(query,'\\s+',' ','g'),70) q from pg_stat_activity where datname=$1 and state='active' and pid not in ($2,$3)`, [dbname, myPid, dbPid]);
          samples++;
          for (const r of rows) { const k = r.w.startsWith('Client') ? r.w : `${r.w} | ${r.q}`; waits.set(k, (waits.get(k) ?? 0) + 1); }
          for (const pid of await pids()) if (!start.has(pid)) start.set(pid, 0);
          if (process.env.PROBE_LOCKS) {
            // Which row a lock wait is on (the waiter holds the tuple lock while it waits for the
            // holder's transaction) and what the blocking session is running.
            const { rows: locks } = await mon.query(`select coalesce(t.relation::regclass::text, w.wait_event) rel, left(regexp_replace(b.query,'\\s+',' ','g'),60) blocker
                from pg_stat_activity w
                left join pg_locks t on t.pid = w.pid and t.locktype = 'tuple' and t.granted
                left join pg_stat_activity b on b.pid = (pg_blocking_pids(w.pid))[1]
               where w.datname = $1 and w.wait_event_type = 'Lock'`, [dbname]);
            for (const r of locks) { const k = `LOCK on ${r.rel} | blocker: ${r.blocker}`; waits.set(k, (waits.get(k) ?? 0) + 1); }
          }
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const load0 = os.loadavg()[0];
      const b = await P.burst(p, db, channel, `p${randomBytes(3).toString('hex')}`, messages, senders);
      sampling = false; await sampler;
      let pgCpu = 0;
      for (const [pid, c0] of start) { const c1 = cpuOf(pid); if (c1 !== null && c0 !== null) pgCpu += c1 - c0; }
      console.log(JSON.stringify({ label, messages, senders, rate: Math.round(b.rate), complete: b.complete, failed: b.failed,
        stmts: b.statementsPerMessage?.toFixed(2), redis: b.redisPerMessage?.toFixed(2), workerCpuMs: b.cpuMsPerMessage?.toFixed(2),
        pgCpuMs: (pgCpu / messages).toFixed(2), backends: start.size, load: [load0.toFixed(1), os.loadavg()[0].toFixed(1)] }));
      console.log('waits (samples=' + samples + '):');
      for (const [k, v] of [...waits].sort((a, b) => b[1] - a[1]).slice(0, 14)) console.log(`  ${v}\t${k}`);
      console.log('top statements:');
      for (const [k, v] of b.topStatements.slice(0, 25)) console.log(`  ${(v / messages).toFixed(3)}\t${k}`);
    } finally {
      await mon.end(); await db.end(); replies.server.close();
    }
  });
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
