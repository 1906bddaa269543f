/**
 * pg_stat_activity sampler (session 26; docs/performance.md "Session 26: quiet full bench and
 * embedded maintenance"). Diagnosis only: every 20 ms for N ms, counts the active backends of every
 * `sis_%` database (bench and test databases) by wait event and statement, then prints the most
 * frequent. Run it beside a bench phase, e.g. 10 s after the bench logs "ack latency (open loop":
 *
 *   node bench/probes/pg-activity-sampler.js 10000
 */
const { Client } = require(require('node:path').join(__dirname, '../../node_modules/pg'));
(async () => {
  const c = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await c.connect();
  const counts = new Map(); let n = 0;
  const end = Date.now() + Number(process.argv[2] || 30000);
  while (Date.now() < end) {
    const { rows } = await c.query(`select datname, coalesce(wait_event_type,'CPU')||'/'||coalesce(wait_event,'-') w, left(regexp_replace(query,'\\s+',' ','g'),90) q, application_name a from pg_stat_activity where state='active' and pid<>pg_backend_pid() and datname like 'sis_%'`);
    n++;
    for (const r of rows) { const k = `${r.w} | ${r.q}`; counts.set(k, (counts.get(k) || 0) + 1); }
    await new Promise((r) => setTimeout(r, 20));
  }
  console.log('samples', n);
  [...counts].sort((a, b) => b[1] - a[1]).slice(0, 25).forEach(([k, v]) => console.log(String(v).padStart(5), k));
  await c.end();
})();
