/**
 * Preloaded into the `api` process by bench/probes/ack-latency-probe.js (diagnosis only, never loaded by
 * the service itself; session 25, docs/performance.md "Session 25: ack latency tail"). Times each
 * signed Custom Channel ack that carries an `x-probe-i` header through its phases, all as epoch ms
 * (performance.timeOrigin + now(), comparable with the generator's clock on the same machine):
 *
 *   req      the server's 'request' event (headers parsed)
 *   answer   the fast route's answer() called (body read and parsed)
 *   buf      GroupCommit.storeOne: the row joins the group-commit buffer (look-up and HMAC done)
 *   flush    its batch's flush starts (a group-commit slot was free)         + rows in that batch
 *   query    the INSERT handed to pg (ack pool connection acquired)
 *   done     the INSERT + COMMIT returned
 *   write    writeHead of the 200
 *   finish   the response's 'finish' (handed to the kernel)
 *
 * plus, every 50 ms: the event loop's delay (max, p99; monitorEventLoopDelay, 1 ms resolution) and
 * the process's CPU; and every GC pause (PerformanceObserver 'gc'). SIGWINCH writes everything
 * recorded since the last SIGWINCH to ACK_TRACE_FILE (JSON) and starts afresh.
 */
const { performance, PerformanceObserver, monitorEventLoopDelay } = require('node:perf_hooks');
const http = require('node:http');
const Module = require('node:module');
const { writeFileSync } = require('node:fs');

const file = process.env.ACK_TRACE_FILE;
const now = () => performance.timeOrigin + performance.now();
let reqs = new Map(); // i -> record
let windows = [];
let gcs = [];
let flushes = [];
const idOf = (text) => {
  // `bench <tag>-<i> …`
  const m = /^bench \S+?-(\d+) /.exec(text);
  return m ? m[1] : null;
};
const rec = (i) => {
  let r = reqs.get(i);
  if (!r) reqs.set(i, (r = { i: Number(i) }));
  return r;
};

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req, res) {
  if (event === 'request') {
    const i = req.headers['x-probe-i'];
    if (i !== undefined) {
      const r = rec(i);
      r.req = now();
      if (i === '0') startHeapProfile();
      const writeHead = res.writeHead;
      res.writeHead = function (...args) {
        r.write = now();
        return writeHead.apply(this, args);
      };
      res.once('finish', () => (r.finish = now()));
    }
  }
  return emit.apply(this, arguments);
};

const patched = new WeakSet();
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const exports = load.apply(this, arguments);
  if (typeof request === 'string' && exports && !patched.has(exports)) {
    if (/inbound-ack-batcher(\.js)?$/.test(request) && exports.GroupCommit) {
      patched.add(exports);
      patchGroupCommit(exports.GroupCommit.prototype);
    } else if (/custom-channel-fast-ack(\.js)?$/.test(request) && exports.CustomChannelFastAck) {
      patched.add(exports);
      const proto = exports.CustomChannelFastAck.prototype;
      const answer = proto.answer;
      proto.answer = function (request) {
        const i = request.headers['x-probe-i'];
        if (i !== undefined) rec(i).answer = now();
        return answer.call(this, request);
      };
    }
  }
  return exports;
};

function patchGroupCommit(proto) {
  const storeOne = proto.storeOne;
  proto.storeOne = function (item) {
    const i = typeof item.row?.payload?.text === 'string' ? idOf(item.row.payload.text) : null;
    if (i !== null) rec(i).buf = now();
    return storeOne.call(this, item);
  };
  const flush = proto.flush;
  proto.flush = function (batch) {
    const t = now();
    const f = { t, rows: batch.length, inFlight: this.inFlight };
    flushes.push(f);
    for (const entry of batch) {
      const text = entry.item.row?.payload?.text;
      const i = typeof text === 'string' ? idOf(text) : null;
      if (i === null) continue;
      const r = rec(i);
      r.flush = t;
      r.rows = batch.length;
      const resolve = entry.resolve;
      entry.resolve = (id) => {
        r.done = now();
        resolve(id);
      };
    }
    return flush.call(this, batch).finally(() => (f.end = now()));
  };
}

// The INSERT handed to pg: after the ack pool's connect.
try {
  const pg = require(require.resolve('pg', { paths: [process.cwd(), __dirname] }));
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, values) {
    const text = typeof config === 'string' ? config : config?.text;
    if (typeof text === 'string' && text.startsWith('INSERT INTO inbound_events')) {
      const t = now();
      const params = typeof config === 'string' ? values : config.values;
      if (Array.isArray(params))
        for (const p of params)
          if (typeof p === 'string' && p.includes('"text":"bench ')) {
            const m = /"text":"(bench [^"]*)"/.exec(p);
            const i = m && idOf(m[1]);
            if (i !== null) rec(i).query = t;
          }
    }
    return query.apply(this, arguments);
  };
} catch (e) {
  console.error('ack-trace: pg not patched', e);
}

const eld = monitorEventLoopDelay({ resolution: 1 });
eld.enable();
let cpu0 = process.cpuUsage();
setInterval(() => {
  const cpu = process.cpuUsage(cpu0);
  cpu0 = process.cpuUsage();
  windows.push({ t: now(), max: eld.max / 1e6, p99: eld.percentile(99) / 1e6, cpuMs: (cpu.user + cpu.system) / 1000 });
  eld.reset();
}, 50).unref();

new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    gcs.push({ t: performance.timeOrigin + e.startTime, ms: e.duration, kind: e.detail?.kind ?? e.kind });
}).observe({ entryTypes: ['gc'] });

// ACK_HEAP_PROF=<dir>: an allocation profile (sampled, garbage included) from the first traced
// request to the SIGWINCH, written as <dir>/api-<pid>.heapprofile (open in Chrome DevTools).
let heapSession = null;
function startHeapProfile() {
  if (!process.env.ACK_HEAP_PROF || heapSession) return;
  const { Session } = require('node:inspector');
  heapSession = new Session();
  heapSession.connect();
  heapSession.post('HeapProfiler.startSampling', {
    samplingInterval: 8192,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
}

process.on('SIGWINCH', () => {
  if (heapSession) {
    const session = heapSession;
    heapSession = null;
    session.post('HeapProfiler.stopSampling', (e, r) => {
      if (!e) writeFileSync(`${process.env.ACK_HEAP_PROF}/api-${process.pid}-${Date.now()}.heapprofile`, JSON.stringify(r.profile));
      session.disconnect();
    });
  }
  const heap = require('node:v8')
    .getHeapSpaceStatistics()
    .filter((h) => h.space_name === 'new_space' || h.space_name === 'old_space')
    .map((h) => ({ space: h.space_name, sizeMB: +(h.space_size / 1048576).toFixed(1), usedMB: +(h.space_used_size / 1048576).toFixed(1) }));
  if (file) writeFileSync(file, JSON.stringify({ reqs: [...reqs.values()], windows, gcs, flushes, heap }));
  reqs = new Map();
  windows = [];
  gcs = [];
  flushes = [];
});
