import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg, availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import type { BenchRow } from './types';

function fmt(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  return Number.isInteger(value) ? value.toLocaleString('en') : String(value);
}

/** The one table `npm run bench` prints: figure, value, target, PASS/FAIL, ratio to the baseline. */
export function renderTable(rows: readonly BenchRow[]): string {
  const header = ['figure', 'value', 'target', 'result', 'ratio to baseline'];
  const body = rows.map((r) => [
    r.figure,
    `${fmt(r.value)} ${r.unit}`,
    r.target
      ? `${r.target} ${r.unit.startsWith('req') || r.unit.startsWith('msg') || r.unit === 'messages' ? '' : r.unit}`.trim()
      : '',
    r.pass === undefined ? '' : r.pass ? 'PASS' : 'FAIL',
    r.ratio === undefined ? '' : `${fmt(r.ratio)} (${r.baseline ?? ''})`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

export function machine(): Record<string, unknown> {
  return {
    node: process.version,
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model,
    loadavg: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

export function writeResults(dir: string, payload: Record<string, unknown>): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'latest.json');
  writeFileSync(file, `${JSON.stringify(payload, null, 2)}\n`);
  return file;
}
