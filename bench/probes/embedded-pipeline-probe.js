/**
 * Embedded pipeline probe (session 23; docs/performance.md "Session 23: embedded pipeline").
 * Diagnosis only, not a bench module: ONE embedded service (PGlite in the process, in-process jobs)
 * from `<root>/dist`, so two builds — old and new code — can be compared in the same window, with the
 * bench's statement counter preloaded. A 200-message warm-up, then optionally a backlog (B messages
 * from 1,000 senders, as the inbox bench's ack rounds leave behind), then N messages from S new
 * customers through the signed Custom Channel, timed until stored + assigned + ticketed (the
 * bench's pipeline figure). Prints one JSON line: rate, statements and CPU ms of the process per
 * message, the backlog's own drain rate, then the statements that grew most.
 *
 *   npm run build && node bench/probes/embedded-pipeline-probe.js "$PWD" 1000 100 label [backlog]
 *   PROBE_NODE_ARGS="--heap-growing-percent=0" node bench/probes/…   # extra node flags for the service
 *   BENCH_CPU_PROF=/tmp/prof node bench/probes/…                       # + a CPU profile of the service
 *   PROBE_ENV='{"INBOUND_SWEEP_TICK_MS":"600000"}' node bench/probes/…  # extra environment for the service
 *   PROBE_SQL_AFTER_BACKLOG='VACUUM ANALYZE' node bench/probes/…      # a statement between the backlog and the burst
 *   PROBE_ACK_SECONDS=5 node bench/probes/…   # acks instead of the burst: the bench's open loop (500/s)
 *                                             # then its closed loop (50 connections), no drain between
 */
const root = process.argv[2];
if (!root) {
  console.error(
    'usage: node bench/probes/embedded-pipeline-probe.js <checkout with dist/> [messages] [senders] [label] [backlog]',
  );
  process.exit(2);
}
const messages = Number(process.argv[3] ?? 1000);
const senders = Number(process.argv[4] ?? 100);
const label = process.argv[5] ?? root;
const backlog = Number(process.argv[6] ?? 0);
const { join } = require('node:path');
const { randomBytes } = require('node:crypto');
const os = require('node:os');
const P = require(root + '/dist/bench/lib/pipeline.js');
const S = require(root + '/dist/bench/lib/service.js');
const C = require(root + '/dist/bench/lib/statement-counter.js');
const L = require(root + '/dist/bench/lib/load.js');

(async () => {
  await S.withDataDir(async (dir) => {
    const countFile = join(dir, 'statements.json');
    const extra = (process.env.PROBE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
    const env = {
      ...S.commonEnv(dir),
      BENCH_STATEMENT_COUNT_FILE: countFile,
      ...(process.env.PROBE_ENV ? JSON.parse(process.env.PROBE_ENV) : {}),
      ...(process.env.BENCH_CPU_PROF ? { BENCH_CPU_PROF: process.env.BENCH_CPU_PROF } : {}),
    };
    const service = await S.startService(env, undefined, [
      '--require',
      root + '/dist/bench/lib/statement-counter.js',
      ...extra,
    ]);
    const p = { service, engine: 'embedded', counts: () => C.readCounts(countFile) };
    const replies = await P.sink();
    const db = await S.serviceDb(service);
    try {
      const channel = await P.setupInbox(service, `${replies.url}/replies`);
      await P.burst(p, db, channel, `w${randomBytes(2).toString('hex')}`, 200, 20);
      const ackSeconds = Number(process.env.PROBE_ACK_SECONDS ?? 0);
      if (ackSeconds > 0) {
        const tag = `a${randomBytes(2).toString('hex')}`;
        const common = { url: channel.url, connections: 50, durationMs: ackSeconds * 1000 };
        const load0 = os.loadavg()[0];
        const open = await L.load({ ...common, rate: 500, build: P.signed(channel.secret, `${tag}o`, 1000) });
        const closed = await L.load({ ...common, build: P.signed(channel.secret, `${tag}c`, 1000) });
        console.log(
          JSON.stringify({
            label,
            ack: true,
            openAchieved: Math.round(open.achieved),
            openP99: Number(open.p99.toFixed(1)),
            closedReqS: Math.round(closed.achieved),
            closedP99: Number(closed.p99.toFixed(1)),
            non2xx: open.non2xx + closed.non2xx,
            load: [load0.toFixed(1), os.loadavg()[0].toFixed(1)],
          }),
        );
        return;
      }
      let backlogRate = null;
      if (backlog > 0) {
        const b = await P.burst(p, db, channel, `b${randomBytes(2).toString('hex')}`, backlog, 1000);
        backlogRate = Math.round(b.rate);
      }
      if (process.env.PROBE_SQL_AFTER_BACKLOG) {
        const t0 = Date.now();
        const r = await db.query(process.env.PROBE_SQL_AFTER_BACKLOG);
        if (r.rows?.length) console.error(JSON.stringify(r.rows));
        console.error(`PROBE_SQL_AFTER_BACKLOG took ${Date.now() - t0} ms`);
      }
      const load0 = os.loadavg()[0];
      const b = await P.burst(p, db, channel, `p${randomBytes(3).toString('hex')}`, messages, senders);
      console.log(
        JSON.stringify({
          label,
          messages,
          senders,
          rate: Number(b.rate.toFixed(1)),
          complete: b.complete,
          failed: b.failed,
          stmts: b.statementsPerMessage?.toFixed(2),
          cpuMs: b.cpuMsPerMessage?.toFixed(2),
          backlog,
          backlogRate,
          load: [load0.toFixed(1), os.loadavg()[0].toFixed(1)],
        }),
      );
      if (process.env.PROBE_TOP) {
        console.log('top statements:');
        for (const [k, v] of b.topStatements.slice(0, Number(process.env.PROBE_TOP)))
          console.log(`  ${(v / messages).toFixed(3)}\t${k}`);
        if (b.topStatementMs.length) console.log('ms per message by statement (BENCH_STATEMENT_TIMES=1):');
        for (const [k, v] of b.topStatementMs.slice(0, Number(process.env.PROBE_TOP)))
          console.log(`  ${(v / messages).toFixed(3)}\t${k}`);
      }
    } finally {
      await db.end();
      replies.server.close();
      await S.stop(service.child);
    }
  });
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
