import { join } from 'node:path';
import * as aiAgent from './ai-agent';
import * as analytics from './analytics';
import * as automations from './automations';
import * as catalogue from './catalogue';
import * as coldStart from './cold-start';
import * as inbox from './inbox';
import * as lists from './lists';
import * as webhooks from './webhooks';
import { machine, renderTable, writeResults } from './lib/table';
import type { BenchContext, BenchModule, BenchRow } from './lib/types';

/**
 * `npm run bench`: every DESIGN §13/§15 figure, measured on this machine, as ONE table (stdout)
 * and bench/results/latest.json. Not part of `npm test`: timings belong here, never in assertions.
 *
 *   npm run bench                        # everything
 *   npm run bench -- --short             # a few seconds per figure (CI; no PASS/FAIL gate)
 *   npm run bench -- inbox lists         # only those modules
 *   npm run bench -- --pg-only           # skip the embedded rounds (--embedded-only: the reverse)
 *
 * With DATABASE_URL (and REDIS_URL) the PostgreSQL (and BullMQ) rounds run too.
 *
 * Adding a module: a file `bench/<name>.ts` exporting `name` and `run(ctx): Promise<BenchRow[]>`
 * (see lib/types.ts), imported and appended to MODULES below. Nothing else.
 */
const MODULES: BenchModule[] = [
  coldStart,
  inbox,
  lists,
  catalogue,
  analytics,
  automations,
  aiAgent,
  webhooks,
];

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const short = args.includes('--short');
  const only = args.filter((a) => !a.startsWith('--'));
  const ctx: BenchContext = {
    short,
    databaseUrl: args.includes('--embedded-only') ? undefined : process.env.DATABASE_URL || undefined,
    redisUrl: args.includes('--embedded-only') ? undefined : process.env.REDIS_URL || undefined,
    embedded: !args.includes('--pg-only'),
    log: (message) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`),
  };
  const before = machine();
  const rows: BenchRow[] = [];
  const failures: string[] = [];
  for (const module of MODULES) {
    if (only.length && !only.some((o) => module.name.includes(o))) continue;
    ctx.log(`module ${module.name}`);
    try {
      for (const row of await module.run(ctx)) rows.push({ module: module.name, ...row });
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      failures.push(`${module.name}: ${message}`);
      rows.push({
        module: module.name,
        figure: `${module.name}: did not complete`,
        value: null,
        unit: '',
        pass: false,
        note: message,
      });
    }
  }
  const after = machine();
  process.stdout.write(`\n${renderTable(rows)}\n\n`);
  process.stdout.write(
    `Node ${String(before.node)}, ${String(before.cpus)} CPUs; load average before ${JSON.stringify(before.loadavg)}, after ${JSON.stringify(after.loadavg)}` +
      `${short ? '; --short: small sizes, targets not gated' : ''}\n`,
  );
  const file = writeResults(join(__dirname, '..', '..', 'bench', 'results'), {
    at: new Date().toISOString(),
    short,
    engines: { postgres: Boolean(ctx.databaseUrl), redis: Boolean(ctx.redisUrl) },
    machine: { before, after },
    rows,
  });
  process.stdout.write(`written ${file}\n`);
  for (const f of failures) process.stderr.write(`${f}\n`);
  // A module that crashed always fails the run; a missed target fails it only in full mode.
  if (failures.length || rows.some((r) => r.pass === false && (r.correctness || !short))) process.exit(1);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
