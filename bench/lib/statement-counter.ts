/**
 * Preloaded into a service process by the bench (`node --require dist/bench/lib/statement-counter.js
 * dist/src/main.js`, see `startWorker({ countStatements })`): counts every SQL statement the process
 * sends through `pg` and every Redis command it sends through ioredis, and writes the counts to
 * `BENCH_STATEMENT_COUNT_FILE` (JSON, rewritten every 250 ms and at exit).
 *
 * This is how the bench measures the pipeline's COST (statements and Redis commands per message),
 * which a loaded machine cannot distort the way it distorts times. Statements are grouped by their
 * text with literals and parameters elided (the first 120 characters), so the file also says which
 * statements dominate. Never loaded by the service itself.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

interface Counts {
  sql: number;
  redis: number;
  /** The process's CPU time (user + system) in ms when the file was written. */
  cpuMs?: number;
  byStatement: Record<string, number>;
  /** With BENCH_STATEMENT_TIMES=1: ms from sending each statement to its result, summed by statement. */
  msByStatement?: Record<string, number>;
  byRedisCommand: Record<string, number>;
}

const file = process.env.BENCH_STATEMENT_COUNT_FILE;
const counts: Counts = { sql: 0, redis: 0, byStatement: {}, byRedisCommand: {} };

/**
 * Each distinct text is shaped once: the regular expressions ran for every statement and were ~2.5 %
 * of the measured worker's CPU in the AI round (session 29), a cost of the measurement, not of the
 * service. Bounded: texts with literals in them can be many.
 */
const shapes = new Map<string, string>();
function shape(text: string): string {
  let shaped = shapes.get(text);
  if (shaped === undefined) {
    shaped = text
      .replace(/\s+/g, ' ')
      .replace(/'[^']*'/g, "'?'")
      .replace(/\$\d+/g, '$')
      .replace(/\b\d+\b/g, 'N')
      .trim()
      .slice(0, 120);
    if (shapes.size >= 5_000) shapes.clear();
    shapes.set(text, shaped);
  }
  return shaped;
}

const timed = process.env.BENCH_STATEMENT_TIMES === '1';

function countSql(text: unknown): string {
  counts.sql++;
  const key = typeof text === 'string' ? shape(text) : '(prepared / config object)';
  counts.byStatement[key] = (counts.byStatement[key] ?? 0) + 1;
  return key;
}

/** Adds the time until `result` settles to its statement (BENCH_STATEMENT_TIMES=1). */
function timeSql(key: string, started: number, result: unknown): void {
  if (!timed || !result || typeof (result as Promise<unknown>).then !== 'function') return;
  const add = () => {
    const ms = (counts.msByStatement ??= {});
    ms[key] = (ms[key] ?? 0) + performance.now() - started;
  };
  (result as Promise<unknown>).then(add, add);
}

/* eslint-disable @typescript-eslint/no-require-imports */
function patch(): void {
  const pg = require('pg');
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function query(this: unknown, config: unknown, ...rest: unknown[]) {
    const key = countSql(
      typeof config === 'object' && config !== null && 'text' in config ? (config as { text: unknown }).text : config,
    );
    const started = performance.now();
    const result: unknown = original.call(this, config, ...rest);
    timeSql(key, started, result);
    return result;
  };
  try {
    const { Redis } = require('ioredis');
    const send = Redis.prototype.sendCommand;
    Redis.prototype.sendCommand = function sendCommand(this: unknown, command: { name?: string }, ...rest: unknown[]) {
      counts.redis++;
      const name = String(command?.name ?? '?');
      counts.byRedisCommand[name] = (counts.byRedisCommand[name] ?? 0) + 1;
      return send.call(this, command, ...rest);
    };
  } catch {
    // no ioredis: only SQL is counted
  }
}
/* eslint-enable @typescript-eslint/no-require-imports */

/** The counts written last (`sql`, `redis`): an idle process does not rewrite the same file. */
let written = '';
function flush(): void {
  if (!file) return;
  const cpu = process.cpuUsage();
  counts.cpuMs = (cpu.user + cpu.system) / 1000;
  const now = `${counts.sql}/${counts.redis}`;
  if (now === written && written !== '') return;
  written = now;
  writeFileSync(file, JSON.stringify(counts));
}

if (file) {
  patch();
  setInterval(flush, 250).unref();
  process.once('exit', flush);
}

/** BENCH_CPU_PROF=<dir>: a CPU profile (.cpuprofile, for Chrome DevTools) written when the process gets SIGTERM. */
const profileDir = process.env.BENCH_CPU_PROF;
if (profileDir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable', () => session.post('Profiler.start'));
  process.prependOnceListener('SIGTERM', () => {
    // The in-process inspector answers synchronously: the file is written before the service's own handler runs.
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(join(profileDir, `pipeline-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}

/** Reads a counts file written by the preload (zeros when it is not there yet). */
export function readCounts(path: string): Counts {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Counts;
  } catch {
    return { sql: 0, redis: 0, byStatement: {}, byRedisCommand: {} };
  }
}

/** What happened between two snapshots: totals and the statements that grew most. */
export function delta(
  before: Counts,
  after: Counts,
  top = 40,
): {
  sql: number;
  redis: number;
  cpuMs: number;
  top: [string, number][];
  redisTop: [string, number][];
  timeTop: [string, number][];
} {
  const diff = (a: Record<string, number>, b: Record<string, number>) =>
    Object.entries(b)
      .map(([k, v]) => [k, v - (a[k] ?? 0)] as [string, number])
      .filter(([, v]) => v > 0)
      .sort((x, y) => y[1] - x[1])
      .slice(0, top);
  return {
    sql: after.sql - before.sql,
    redis: after.redis - before.redis,
    cpuMs: (after.cpuMs ?? 0) - (before.cpuMs ?? 0),
    top: diff(before.byStatement, after.byStatement),
    redisTop: diff(before.byRedisCommand, after.byRedisCommand),
    timeTop: diff(before.msByStatement ?? {}, after.msByStatement ?? {}),
  };
}

export type { Counts };
