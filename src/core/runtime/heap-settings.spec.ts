import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { leanHeapFlagsFor, leanHeapFlagsToSet } from './heap-settings';

/**
 * The flags are set in a child process (the test runner keeps its own heap): the module's source,
 * transpiled as it is, runs there, allocates short-lived garbage, then reports the young generation's
 * size as V8 itself reports it.
 */
function youngGenerationMb(apply: boolean): number {
  const source = readFileSync(join(process.cwd(), 'src/core/runtime/heap-settings.ts'), 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS } });
  const script = `
    const module = { exports: {} }; const exports = module.exports;
    ${outputText}
    if (${apply}) exports.applyLeanHeapSettings([], '');
    const kept = [];
    for (let i = 0; i < 400000; i++) { const o = { i, s: 'x'.repeat(i % 50) + i }; if (i % 100 === 0) kept.push(o); }
    const space = require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    process.stdout.write(String(space.space_size / 1048576) + ' ' + kept.length);
  `;
  return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).split(' ')[0]);
}

describe('lean heap settings (issue 16 item 5)', () => {
  it('apply both on the embedded engine, the old generation only to the API processes on PostgreSQL, none to workers', () => {
    expect(leanHeapFlagsFor(true, 'all')).toEqual(['--heap-growing-percent=30', '--semi-space-growth-factor=1']);
    expect(leanHeapFlagsFor(false, 'all')).toEqual(['--heap-growing-percent=30']);
    expect(leanHeapFlagsFor(false, 'api')).toEqual(['--heap-growing-percent=30']);
    expect(leanHeapFlagsFor(false, 'worker')).toEqual([]);
  });

  it('sets the growth flags, except those the operator gave on the command line or in NODE_OPTIONS', () => {
    const names = (flags: string[]): string[] => flags.map((flag) => flag.split('=')[0]!);
    expect(names(leanHeapFlagsToSet([], undefined))).toEqual(['--heap-growing-percent', '--semi-space-growth-factor']);
    expect(names(leanHeapFlagsToSet(['--heap_growing_percent=80'], undefined))).toEqual([
      '--semi-space-growth-factor',
    ]);
    expect(names(leanHeapFlagsToSet([], '--max-old-space-size=512 --semi-space-growth-factor=2'))).toEqual([
      '--heap-growing-percent',
    ]);
  });

  it('takes effect when set after start: the young generation stays small under a burst of garbage', () => {
    const without = youngGenerationMb(false);
    const withFlags = youngGenerationMb(true);
    expect(withFlags).toBeLessThanOrEqual(4);
    expect(without).toBeGreaterThan(withFlags);
  });
});
