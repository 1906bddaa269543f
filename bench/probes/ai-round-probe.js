/**
 * AI round probe (session 24, issue 16 item 3; docs/performance.md "Session 24: AI round"). Diagnosis
 * only, not a bench module: the automations bench's "50 rules + an AI agent answering every message"
 * round without the rest of that bench, so old and new code can be compared in pairs in a few minutes.
 * PostgreSQL + Redis at 127.0.0.1 (REDIS_URL from the environment), one `api` and one `worker` process
 * from `<root>/dist` (old and new builds), then:
 *   1. a 200-message warm-up;
 *   2. a round without automations (N messages from N/10 new customers), unless PROBE_AI_ONLY=1;
 *   3. 50 non-matching rules, the 30-item catalogue and a BUILTIN agent, as bench/automations.ts adds
 *      them; a round where every message asks about a product (the agent answers each one).
 * Prints one JSON line per round (msg/s, statements / Redis commands / worker CPU ms per message, the
 * CPU ms per message of the round's PostgreSQL backends read from /proc — the server must run here; for
 * the AI round the ratio to round 2, AI replies stored, SENT and received by the channel once the
 * deliveries are done), then the
 * statements and Redis commands of the AI round that grew most.
 *
 *   npm run build && REDIS_URL=redis://127.0.0.1:6379/5 node bench/probes/ai-round-probe.js "$PWD" 2000 label
 *   PROBE_ENV='{"WORKER_NICE":"0"}' …   # extra environment for the api and the worker
 *   PROBE_TIMELINE=1 …   # + received / processed events per 500 ms of the AI round
 *   BENCH_CPU_PROF=/tmp/prof PROBE_AI_ONLY=1 node bench/probes/ai-round-probe.js …   # + a CPU profile of the worker
 */
const root = process.argv[2];
if (!root) {
  console.error('usage: node bench/probes/ai-round-probe.js <checkout with dist/> [messages] [label]');
  process.exit(2);
}
const messages = Number(process.argv[3] ?? 2000);
const senders = Number(process.env.PROBE_SENDERS ?? messages / 10);
const label = process.argv[4] ?? root;
const { randomBytes } = require('node:crypto');
const os = require('node:os');
const { readFileSync } = require('node:fs');
const { Client } = require(root + '/node_modules/pg');
const P = require(root + '/dist/bench/lib/pipeline.js');
const S = require(root + '/dist/bench/lib/service.js');
const C = require(root + '/dist/bench/lib/statement-counter.js');

const BRANDS = ['Aurora', 'Nimbus', 'Orbit', 'Pulse', 'Zenith'];
const NOUNS = ['Kettle', 'Toaster', 'Blender', 'Speaker', 'Lamp', 'Backpack'];
const PRODUCTS = BRANDS.flatMap((brand) => NOUNS.map((noun) => `${brand} ${noun}`));
const question = (i) => `how much is the ${PRODUCTS[i % PRODUCTS.length].toLowerCase()}?`;

function rule(i) {
  return {
    name: `Bench rule ${i}`,
    kind: 'RULE',
    active: true,
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
  };
}

/** CPU ms (user + system) of a process, from /proc (PostgreSQL must run on this machine). */
function cpuOf(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** Runs `fn` while summing the CPU of every PostgreSQL backend of the service's database (sampled every 100 ms for new ones). */
async function withPgCpu(mon, dbname, ownPids, fn) {
  const pids = async () =>
    (
      await mon.query('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND NOT (pid = ANY($2))', [dbname, ownPids])
    ).rows.map((r) => r.pid);
  const start = new Map();
  for (const pid of await pids()) start.set(pid, cpuOf(pid));
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      for (const pid of await pids()) if (!start.has(pid)) start.set(pid, 0);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const result = await fn();
  sampling = false;
  await sampler;
  let ms = 0;
  for (const [pid, c0] of start) {
    const c1 = cpuOf(pid);
    if (c1 !== null && c0 !== null) ms += c1 - c0;
  }
  return { result, pgCpuMs: ms };
}

/**
 * The statement counter's counts once readable and still: its file is rewritten every 250 ms, so a
 * read can catch it half-written (zeros), and after-commit work follows the last event by a moment.
 */
async function settled(p) {
  let last = null;
  for (let i = 0; i < 30; i++) {
    const now = p.counts();
    if (now.sql > 0 && last && now.sql === last.sql && now.redis === last.redis) return now;
    if (now.sql > 0) last = now;
    await new Promise((r) => setTimeout(r, 500));
  }
  return last ?? p.counts();
}

(async () => {
  const ctx = {
    short: false,
    databaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    embedded: false,
    log: (m) => console.error(m),
  };
  const env = process.env.PROBE_ENV ? JSON.parse(process.env.PROBE_ENV) : {};
  await P.forEachEngine(ctx, { countStatements: true, env }, async (p) => {
    const replies = await P.sink();
    const db = await S.serviceDb(p.service);
    const mon = new Client({ connectionString: p.service.env.DATABASE_URL });
    await mon.connect();
    try {
      const dbname = (await mon.query('SELECT current_database() AS d')).rows[0].d;
      const ownPids = [
        (await mon.query('SELECT pg_backend_pid() AS p')).rows[0].p,
        (await db.query('SELECT pg_backend_pid() AS p')).rows[0].p,
      ];
      const measured = async (fn) => {
        const { result, pgCpuMs } = await withPgCpu(mon, dbname, ownPids, fn);
        return { b: result, pg: (pgCpuMs / messages).toFixed(2) };
      };
      const channel = await P.setupInbox(p.service, `${replies.url}/replies`);
      await P.burst(p, db, channel, `w${randomBytes(2).toString('hex')}`, 200, 20);
      const out = (round, b, extra = {}) => {
        const line = {
          label,
          round,
          messages,
          rate: Math.round(b.rate),
          complete: b.complete,
          failed: b.failed,
          stmts: b.statementsPerMessage?.toFixed(2),
          redis: b.redisPerMessage?.toFixed(2),
          workerCpuMs: b.cpuMsPerMessage?.toFixed(2),
          ...extra,
        };
        console.log(JSON.stringify(line));
      };
      let none = null;
      if (!process.env.PROBE_AI_ONLY) {
        const load0 = os.loadavg()[0];
        const m = await measured(() =>
          P.burst(p, db, channel, `n${randomBytes(3).toString('hex')}`, messages, senders),
        );
        none = m.b;
        out('none', none, { pgCpuMs: m.pg, load: [load0.toFixed(1), os.loadavg()[0].toFixed(1)] });
      }
      for (let i = 0; i < 50; i++) await S.call(p.service.base, 'POST', '/automations', channel.headers, rule(i));
      for (const [i, name] of PRODUCTS.entries())
        await S.call(p.service.base, 'POST', '/catalog', channel.headers, {
          name,
          price: 20 + i,
          currency: 'USD',
          sku: `BENCH-${i}`,
          stock: 5 + i,
          description: `${name}: a bench product.`,
        });
      await S.call(p.service.base, 'POST', '/ai-agents', channel.headers, {
        name: 'Bench agent',
        provider: 'BUILTIN',
        channelIds: [channel.id],
      });
      const delivered0 = replies.count('replies');
      const before = await settled(p);
      const tag = `a${randomBytes(3).toString('hex')}`;
      const load0 = os.loadavg()[0];
      const m = await measured(() => P.burst(p, db, channel, tag, messages, senders, question));
      const ai = m.b;
      // deliveries may still be running when the last event is processed: wait for them
      const deadline = Date.now() + 60_000;
      while (replies.count('replies') - delivered0 < messages && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 200));
      const { rows } = await db.query(
        `WITH conv AS (SELECT DISTINCT conversation_id AS id FROM messages WHERE text LIKE 'bench ${tag}-%' AND direction = 'INBOUND')
         SELECT (SELECT count(*)::int FROM messages m JOIN conv ON conv.id = m.conversation_id WHERE m.sender_type = 'AI') AS replies,
                (SELECT count(*)::int FROM messages m JOIN conv ON conv.id = m.conversation_id WHERE m.sender_type = 'AI' AND m.delivery_status = 'SENT') AS sent`,
      );
      out('ai', ai, {
        ratio: none ? (ai.rate / none.rate).toFixed(3) : null,
        aiReplies: rows[0].replies,
        aiSent: rows[0].sent,
        channelReceived: replies.count('replies') - delivered0,
        pgCpuMs: m.pg,
        load: [load0.toFixed(1), os.loadavg()[0].toFixed(1)],
      });
      if (process.env.PROBE_TIMELINE) {
        // Per 500 ms from the first acknowledgement: events received (acked) and processed.
        const t = await db.query(
          `WITH e AS (SELECT received_at, processed_at FROM inbound_events WHERE payload->>'text' LIKE 'bench ${tag}-%'),
                t0 AS (SELECT min(received_at) AS t0 FROM e)
           SELECT s.slot, (SELECT count(*)::int FROM e WHERE floor(extract(epoch FROM e.received_at - t0) * 2) = s.slot) AS received,
                  (SELECT count(*)::int FROM e WHERE floor(extract(epoch FROM e.processed_at - t0) * 2) = s.slot) AS processed
             FROM t0, generate_series(0, (SELECT floor(extract(epoch FROM max(processed_at) - t0) * 2)::int FROM e, t0 GROUP BY t0)) AS s(slot)`,
        );
        console.log('timeline (500 ms slots: received / processed):');
        console.log('  ' + t.rows.map((r) => `${r.received}/${r.processed}`).join(' '));
      }
      const after = await settled(p);
      const d = C.delta(before, after, 30);
      console.log('AI round, statements per message:');
      for (const [k, v] of d.top) console.log(`  ${(v / messages).toFixed(3)}\t${k}`);
      console.log('AI round, Redis commands per message:');
      for (const [k, v] of d.redisTop) console.log(`  ${(v / messages).toFixed(3)}\t${k}`);
    } finally {
      await mon.end();
      await db.end();
      replies.server.close();
    }
  });
  process.exit(0);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
