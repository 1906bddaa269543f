/**
 * Embedded CSV commit memory probe (session 24, issue 16 item 5; docs/performance.md "Session 24:
 * embedded CSV memory"). Diagnosis only, not a bench module: the catalogue bench's CSV steps against
 * ONE embedded service from `<root>/dist` (a first start on an empty DATA_DIR, login, token, 3 s idle,
 * the feed rounds, the bench's file previewed, VmHWM reset, committed), started as `npm start` starts
 * it (bench/lib/service.ts `startService`), so two builds can be compared in the same window. While
 * the commit runs, /proc/<pid>/smaps is sampled every 200 ms and the sample with the highest RSS is
 * broken down: PGlite's WebAssembly memory (the ≥ 1 GB reserved anonymous mapping), glibc's thread
 * arenas (64 MB-aligned anonymous heaps), the main arena ([heap]), the node binary, other anonymous
 * memory (V8's heap pages, code, stacks). A `--require` probe in the service (PROBE_INSIDE=1) adds
 * `process.memoryUsage()` and the WebAssembly memory's size at the same moments.
 *
 *   npm run build && node bench/probes/csv-memory-probe.js "$PWD" [rows] [label]
 *   PROBE_NODE_ARGS="--v8-pool-size=1" PROBE_ENV='{"MALLOC_ARENA_MAX":"2"}' node bench/probes/…
 *   PROBE_INSIDE=1 node bench/probes/…   # + the in-process breakdown (adds the probe's own few MB)
 *   PROBE_IDLE_ONLY=1 node bench/probes/… # only the first start's idle figures
 *   PROBE_GDB=1 node bench/probes/…       # + glibc's malloc thresholds at each step (gdb, libc6-dbg)
 *   PROBE_LOGINS=4 PROBE_IDLE_ONLY=1 …     # + RSS after each of 4 more logins (scrypt's 16 MB each)
 */
const root = process.argv[2];
if (!root) {
  console.error('usage: node bench/probes/csv-memory-probe.js <checkout with dist/> [rows] [label]');
  process.exit(2);
}
const rows = Number(process.argv[3] ?? 100000);
const label = process.argv[4] ?? root;
const { readFileSync, writeFileSync, existsSync } = require('node:fs');
const { randomBytes } = require('node:crypto');
const { join } = require('node:path');
const os = require('node:os');
const S = require(root + '/dist/bench/lib/service.js');

const MB = 1024 * 1024;

/** One request through node:http (no undici timeouts: a commit at a high load can take minutes). */
function request(base, method, path, headers, body, contentType) {
  const http = require('node:http');
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers: { ...headers, 'content-type': contentType, 'content-length': body.length } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c) => (text += c)).on('end', () => {
        if ((res.statusCode ?? 500) >= 300) reject(new Error(`${method} ${path} → ${res.statusCode}: ${text.slice(0, 300)}`));
        else resolve(text ? JSON.parse(text) : {});
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

function csvText(n) {
  const lines = ['Product ID,Product Name,Unit price,Currency,Description,SKU,Category,Qty,Image URLs,Tags'];
  for (let i = 1; i <= n; i++) {
    lines.push(
      `P-${i},"Product ${i}, model ${i % 97}","${(1000 + (i % 5000)).toLocaleString('en-US')}.${String(i % 100).padStart(2, '0')}",THB,` +
        `"A sturdy everyday product number ${i} with a description long enough to look real",SKU-${i},Category ${i % 40},${i % 50},` +
        `"https://cdn.example.com/p/${i}/1.jpg, https://cdn.example.com/p/${i}/2.jpg",tag${i % 10};bench`,
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

function status(pid, key) {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

function cpuMs(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

/**
 * /proc/<pid>/smaps grouped (MB of Rss): the WebAssembly memory is the read-write anonymous mapping
 * directly followed by its ≥ 1 GB reserved (---p) remainder; thread arenas are 64 MB-aligned anonymous
 * read-write mappings of at most 64 MB (glibc's arena heaps).
 */
function smaps(pid) {
  const text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const maps = [];
  let current = null;
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (head) {
      current = { start: BigInt(`0x${head[1]}`), end: BigInt(`0x${head[2]}`), perms: head[3], path: head[5].trim(), rss: 0 };
      maps.push(current);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && current) current.rss = Number(rss[1]) / 1024;
  }
  const groups = { wasm: 0, threadArenas: 0, mainArena: 0, nodeBinary: 0, files: 0, otherAnon: 0 };
  maps.forEach((m, i) => {
    const size = Number(m.end - m.start);
    const next = maps[i + 1];
    let group;
    if (m.path === '[heap]') group = 'mainArena';
    else if (m.path.endsWith('/node') || m.path.includes('/bin/node')) group = 'nodeBinary';
    else if (m.path.startsWith('/')) group = 'files';
    else if (
      m.perms.startsWith('rw') && next && next.start === m.end && next.perms.startsWith('---') &&
      Number(next.end - next.start) >= 1024 * MB
    )
      group = 'wasm';
    else if (m.start % BigInt(64 * MB) === 0n && size <= 64 * MB) group = 'threadArenas';
    else group = 'otherAnon';
    groups[group] += m.rss;
  });
  for (const k of Object.keys(groups)) groups[k] = Math.round(groups[k]);
  return groups;
}

/**
 * glibc's malloc parameters in the service (PROBE_GDB=1; needs gdb and glibc's debug symbols): the
 * dynamic mmap threshold rises to the size of the largest mmapped block freed (up to 32 MB), after
 * which every allocation below it comes from the arenas, which keep it when it is freed.
 */
function mallocParams(pid) {
  if (!process.env.PROBE_GDB) return undefined;
  try {
    const { execFileSync } = require('node:child_process');
    const text = execFileSync(
      'gdb',
      ['-p', String(pid), '-batch', '-ex', 'p mp_.mmap_threshold', '-ex', 'p mp_.trim_threshold', '-ex', 'p mp_.n_mmaps'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const [mmapThreshold, trimThreshold, mmaps] = text.split('\n').filter((l) => l.startsWith('$')).map((l) => Number(l.split('= ')[1]));
    return { mmapThreshold, trimThreshold, mmaps };
  } catch (error) {
    return { error: String(error).slice(0, 100) };
  }
}

/**
 * gdb stops the service for a few seconds: its keep-alive timers then close the client's idle
 * connections, so the next request waits until they have (a reused, closing socket fails it).
 */
async function settleAfterGdb() {
  if (process.env.PROBE_GDB) await new Promise((r) => setTimeout(r, 6000));
}

const INSIDE = `
const { writeFileSync } = require('node:fs');
const memories = [];
const W = globalThis.WebAssembly;
const keep = (instance) => { try { const m = instance && instance.exports && instance.exports.memory; if (m && !memories.includes(m)) memories.push(m); } catch {} };
const instantiate = W.instantiate;
W.instantiate = async function (...args) { const r = await instantiate.apply(this, args); keep(r.instance ?? r); return r; };
const OrigMemory = W.Memory;
W.Memory = new Proxy(OrigMemory, { construct(t, a) { const m = Reflect.construct(t, a); memories.push(m); return m; } });
setInterval(() => {
  const u = process.memoryUsage();
  const wasm = memories.reduce((s, m) => s + m.buffer.byteLength, 0);
  try { writeFileSync(process.env.PROBE_INSIDE_FILE, JSON.stringify({ ...u, wasm })); } catch {}
}, 100).unref();
`;

(async () => {
  await S.withDataDir(async (dir) => {
    const extra = (process.env.PROBE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
    const insideFile = join(dir, 'inside.json');
    const insideScript = join(dir, 'inside.js');
    if (process.env.PROBE_INSIDE) writeFileSync(insideScript, INSIDE);
    const env = {
      ...S.commonEnv(dir),
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ...(process.env.PROBE_INSIDE ? { PROBE_INSIDE_FILE: insideFile } : {}),
      ...JSON.parse(process.env.PROBE_ENV ?? '{}'),
    };
    const nodeArgs = [...(process.env.PROBE_INSIDE ? ['--require', insideScript] : []), ...extra];
    const t0 = Date.now();
    const svc = await S.startService(env, 600000, nodeArgs);
    const startMs = Date.now() - t0;
    const pid = svc.child.pid;
    const out = { label, rows, nodeArgs: extra, env: process.env.PROBE_ENV ?? '', startMs };
    try {
      const login = await S.call(svc.base, 'POST', '/auth/login', {}, { email: 'admin@example.com', password: S.ADMIN_PASSWORD });
      const workspaceId = String(login.workspaces[0].id);
      const admin = { authorization: `Bearer ${login.accessToken}`, 'x-workspace-id': workspaceId };
      const token = await S.call(svc.base, 'POST', '/developer/tokens', admin, { name: 'p', scopes: ['catalog:write'] });
      const feed = { authorization: `Bearer ${token.token}` };
      await new Promise((r) => setTimeout(r, 3000));
      out.idle = Math.round(status(pid, 'VmRSS'));
      out.idleSmaps = smaps(pid);
      out.idleMalloc = mallocParams(pid);
      await settleAfterGdb();
      if (process.env.PROBE_LOGINS) {
        out.afterLogins = [];
        for (let i = 0; i < Number(process.env.PROBE_LOGINS); i++) {
          await S.call(svc.base, 'POST', '/auth/login', {}, { email: 'admin@example.com', password: S.ADMIN_PASSWORD });
          out.afterLogins.push(Math.round(status(pid, 'VmRSS')));
        }
        out.afterLoginsSmaps = smaps(pid);
      }
      if (process.env.PROBE_IDLE_ONLY) {
        console.log(JSON.stringify(out));
        return;
      }
      const feedCpu0 = cpuMs(pid);
      const feedWall = [];
      for (let r = 0; r < 10; r++) {
        const f0 = Date.now();
        const items = Array.from({ length: 500 }, (_, i) => ({
          id: `feed-${i}`, name: `Feed product ${i}`, price: 1000 + i + r, currency: 'THB',
          description: `Feed product ${i}, round ${r}`, sku: `F-${i}`, category: `Feed ${i % 10}`,
          stock: (i + r) % 20, images: [`https://feed.example.com/${i}.jpg`],
        }));
        await S.call(svc.base, 'PUT', '/catalog/feed/items', feed, { items });
        feedWall.push(Date.now() - f0);
      }
      out.feedCpuMsPerUpsert = Math.round((cpuMs(pid) - feedCpu0) / 10);
      out.feedMedianMs = feedWall.slice(1).sort((a, b) => a - b)[4];
      out.afterFeed = Math.round(status(pid, 'VmRSS'));
      out.afterFeedSmaps = smaps(pid);
      out.afterFeedMalloc = mallocParams(pid);
      await settleAfterGdb();
      const csv = csvText(rows);
      const form = new FormData();
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'bench.csv');
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
      const encoded = new Response(form);
      const body = Buffer.from(await encoded.arrayBuffer());
      const preview = await request(svc.base, 'POST', '/catalog/import/preview', admin, body, encoded.headers.get('content-type'));
      out.previewPeak = Math.round(status(pid, 'VmHWM'));
      out.commitStart = Math.round(status(pid, 'VmRSS'));
      out.commitStartSmaps = smaps(pid);
      out.commitStartMalloc = mallocParams(pid);
      await settleAfterGdb();
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
      let best = { rss: 0 };
      let inside = null;
      const sampler = setInterval(() => {
        try {
          const rss = status(pid, 'VmRSS');
          if (rss > best.rss) {
            best = { rss: Math.round(rss), ...smaps(pid) };
            if (process.env.PROBE_INSIDE && existsSync(insideFile)) {
              const u = JSON.parse(readFileSync(insideFile, 'utf8'));
              inside = Object.fromEntries(Object.entries(u).map(([k, v]) => [k, Math.round(v / MB)]));
            }
          }
        } catch {}
      }, 200);
      const load0 = os.loadavg()[0];
      const cpu0 = cpuMs(pid);
      const c0 = Date.now();
      const answer = await request(svc.base, 'POST', `/catalog/import/${preview.importId}/commit`, admin, Buffer.from('{}'), 'application/json');
      out.commitS = (Date.now() - c0) / 1000;
      out.commitCpuS = (cpuMs(pid) - cpu0) / 1000;
      clearInterval(sampler);
      out.commitPeak = Math.round(status(pid, 'VmHWM'));
      out.atSampledPeak = best;
      out.afterCommitMalloc = mallocParams(pid);
      if (inside) out.insideAtSampledPeak = inside;
      out.created = answer.created;
      out.errors = answer.errorCount;
      out.load = [load0.toFixed(1), os.loadavg()[0].toFixed(1)];
      console.log(JSON.stringify(out));
    } finally {
      await S.stop(svc.child);
    }
  });
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
