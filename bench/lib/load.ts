import { Agent, request as httpRequest } from 'node:http';
import { percentile } from './stats';

/**
 * A small HTTP load generator that reports what clients saw.
 *
 * Open loop (`rate` set): request i is due at t0 + i / rate, whatever happened to earlier requests.
 * Its latency is measured from that due time to the end of the response, so time spent waiting for
 * a free connection (the service falling behind) counts, as it would for a platform sending
 * webhooks. No synthetic samples are added (unlike autocannon's `overallRate` correction), none are
 * dropped: the percentiles cover EVERY request as its client saw it — an error or non-2xx at the
 * time it took, a timeout at the timeout (a lower bound of what that client waited) — and the
 * counts of 2xx, non-2xx, errors and timeouts are reported separately, with the 2xx-only p99 beside.
 *
 * Closed loop (no `rate`): `connections` clients send back to back for the duration; gives the
 * maximum throughput at that concurrency.
 */
export interface LoadOptions {
  readonly url: string;
  readonly method?: string;
  readonly connections: number;
  /** Requests per second (open loop); omit for closed loop. */
  readonly rate?: number;
  readonly durationMs: number;
  readonly timeoutMs?: number;
  /** Builds request i (body, headers). Runs in the generator, so its CPU is part of the generator's share. */
  readonly build?: (i: number) => { body?: string; headers?: Record<string, string>; path?: string };
  /** Closed loop: stop after this many requests (else after durationMs). */
  readonly count?: number;
  /** Called with each request's number when it got a 2xx. */
  readonly onOk?: (i: number) => void;
}

export interface LoadResult {
  /** Offered req/s (open loop) or null (closed loop). */
  readonly offered: number | null;
  readonly sent: number;
  readonly ok: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  /** 2xx responses per second over the run (first due time to last response). */
  readonly achieved: number;
  /** Percentiles over every request sent (failures at their time, timeouts at the timeout). */
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  /** p99 of the 2xx answers only (what the service's successful acks cost). */
  readonly okP99: number;
  readonly durationMs: number;
  /** CPU the generator process used, as a share of one core (0..1+) and of the machine. */
  readonly generatorCpuCore: number;
  readonly generatorCpuMachine: number;
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const timeoutMs = options.timeoutMs ?? 10_000;
  const latencies: number[] = [];
  const okLatencies: number[] = [];
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let timeouts = 0;
  let sent = 0;
  let lastEnd = 0;

  const send = (i: number, due: number): Promise<void> =>
    new Promise((resolve) => {
      const spec = options.build?.(i) ?? {};
      const headers: Record<string, string | number> = { ...(spec.headers ?? {}) };
      if (spec.body !== undefined) headers['content-length'] = Buffer.byteLength(spec.body);
      sent++;
      let settled = false;
      const finish = (kind: 'ok' | 'non2xx' | 'error' | 'timeout') => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const end = performance.now();
        lastEnd = Math.max(lastEnd, end);
        latencies.push(kind === 'timeout' ? Math.max(end - due, timeoutMs) : end - due);
        if (kind === 'ok') {
          ok++;
          options.onOk?.(i);
          okLatencies.push(end - due);
        } else if (kind === 'non2xx') non2xx++;
        else if (kind === 'timeout') timeouts++;
        else errors++;
        resolve();
      };
      const req = httpRequest(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path: spec.path ?? `${url.pathname}${url.search}`,
          method: options.method ?? (spec.body !== undefined ? 'POST' : 'GET'),
          headers,
        },
        (res) => {
          res.resume();
          res.once('end', () => finish(res.statusCode! >= 200 && res.statusCode! < 300 ? 'ok' : 'non2xx'));
          res.once('error', () => finish('error'));
        },
      );
      const timer = setTimeout(
        () => {
          finish('timeout');
          req.destroy();
        },
        Math.max(1, due + timeoutMs - performance.now()),
      );
      req.once('error', () => finish('error'));
      req.end(spec.body);
    });

  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const inflight = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    inflight.add(p);
    void p.then(() => inflight.delete(p));
  };

  if (options.rate) {
    const interval = 1000 / options.rate;
    const total = Math.max(1, Math.round((options.durationMs / 1000) * options.rate));
    let i = 0;
    await new Promise<void>((resolve) => {
      const tick = () => {
        const now = performance.now();
        while (i < total && t0 + i * interval <= now) {
          track(send(i, t0 + i * interval));
          i++;
        }
        if (i >= total) resolve();
        else setTimeout(tick, Math.max(0, Math.min(1, t0 + i * interval - performance.now())));
      };
      tick();
    });
  } else {
    let i = 0;
    const end = t0 + options.durationMs;
    await Promise.all(
      Array.from({ length: options.connections }, async () => {
        while (performance.now() < end && (options.count === undefined || i < options.count)) {
          const due = performance.now();
          await send(i++, due);
        }
      }),
    );
  }
  await Promise.all(inflight);
  const wall = Math.max(1, (lastEnd || performance.now()) - t0);
  const cpu = process.cpuUsage(cpu0);
  agent.destroy();
  const cores = (await import('node:os')).availableParallelism();
  const core = (cpu.user + cpu.system) / 1000 / wall;
  return {
    offered: options.rate ?? null,
    sent,
    ok,
    non2xx,
    errors,
    timeouts,
    achieved: (ok * 1000) / wall,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    max: latencies.length ? latencies.reduce((a, b) => Math.max(a, b)) : Number.NaN,
    okP99: percentile(okLatencies, 99),
    durationMs: wall,
    generatorCpuCore: core,
    generatorCpuMachine: core / cores,
  };
}

/** Sequential requests (one at a time): latency percentiles of a list endpoint as one user sees it. */
export async function sequential(
  count: number,
  fn: () => Promise<void>,
  warmup = 3,
): Promise<{ p50: number; p95: number; n: number }> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return { p50: percentile(times, 50), p95: percentile(times, 95), n: count };
}

export function describe(r: LoadResult): string {
  const offered = r.offered === null ? 'closed loop' : `offered ${r.offered}/s`;
  return (
    `${offered}, achieved ${r.achieved.toFixed(0)}/s; sent ${r.sent}, 2xx ${r.ok}, non-2xx ${r.non2xx}, ` +
    `errors ${r.errors}, timeouts ${r.timeouts}; all requests p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ` +
    `max ${r.max.toFixed(0)} ms; 2xx p99 ${r.okP99.toFixed(1)} ms; ` +
    `generator CPU ${(r.generatorCpuCore * 100).toFixed(0)}% of a core` +
    (r.generatorCpuCore > 0.8 ? ' (the generator is near saturation: the service may be faster than this)' : '')
  );
}
