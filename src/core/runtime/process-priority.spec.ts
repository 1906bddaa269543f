import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { type PriorityResult, applyRolePriority } from './process-priority';

/**
 * The priority is changed in a child process (the test runner must keep its own): the module's
 * source, transpiled as it is, runs there, then reports the nice value of every thread it has —
 * read from /proc, not from the function under test — including a thread started afterwards.
 */
function runChild(calls: number[]): { results: unknown[]; before: number[]; after: number[]; later: number[] } {
  const source = readFileSync(join(process.cwd(), 'src/core/runtime/process-priority.ts'), 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS } });
  const script = `
    const module = { exports: {} }; const exports = module.exports;
    ${outputText}
    const fs = require('node:fs');
    const { Worker } = require('node:worker_threads');
    const nices = () => fs.readdirSync('/proc/self/task').map((tid) => {
      const stat = fs.readFileSync('/proc/self/task/' + tid + '/stat', 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    });
    const before = nices();
    const results = ${JSON.stringify(calls)}.map((n) => exports.lowerProcessPriority(n));
    const after = nices();
    const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
    worker.on('online', () => {
      const later = nices();
      worker.terminate().then(() => process.stdout.write(JSON.stringify({ results, before, after, later })));
    });
  `;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as ReturnType<
    typeof runChild
  >;
}

const linux = existsSync('/proc/self/task');

describe('lowerProcessPriority (WORKER_NICE, issue 16)', () => {
  (linux ? it : it.skip)('lowers every thread of the process, and threads started later inherit it', () => {
    const { results, before, after, later } = runChild([7]);
    expect(before.every((n) => n === before[0])).toBe(true);
    const start = before[0]!;
    const expected = Math.max(start, 7);
    expect(results).toEqual([{ nice: 7, threads: before.length, failed: 0 }]);
    expect(after.length).toBeGreaterThan(1); // V8's and libuv's helper threads too, not only the main one
    expect(after.every((n) => n === expected)).toBe(true);
    expect(later.length).toBeGreaterThan(after.length);
    expect(later.every((n) => n === expected)).toBe(true);
  });

  (linux ? it : it.skip)('never raises a priority again, and 0 leaves the process alone', () => {
    const { results, before, after } = runChild([0, 12, 5]);
    const start = before[0]!;
    expect(results[0]).toEqual({ nice: 0, threads: 0, failed: 0 });
    // 5 after 12: a lower nice value would be a higher priority, which is never asked for.
    expect(after.every((n) => n === Math.max(start, 12))).toBe(true);
  });
});

describe('applyRolePriority (serve.ts at start-up)', () => {
  it('lowers the priority of the worker role only, to WORKER_NICE', () => {
    const asked: number[] = [];
    const lower = (nice: number): PriorityResult => {
      asked.push(nice);
      return { nice, threads: 1, failed: 0 };
    };
    expect(applyRolePriority({ role: 'worker', workerNice: 10 }, lower)).toEqual({ nice: 10, threads: 1, failed: 0 });
    for (const role of ['api', 'all', 'cli']) expect(applyRolePriority({ role, workerNice: 10 }, lower)).toBeNull();
    expect(applyRolePriority({ role: 'worker', workerNice: 0 }, lower)).toBeNull();
    expect(asked).toEqual([10]);
  });
});
