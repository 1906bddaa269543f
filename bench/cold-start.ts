/**
 * Start-up (DESIGN §15): first start on an empty data dir (initdb + migrations) and a restart, to a
 * healthy /health on the embedded engine; and the CLI's answer time (`node dist/src/cli.js --help`).
 * Both run the compiled `dist/` as `npm start` does (the build is fresh before the bench runs).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, commonEnv, startService, stop, withDataDir } from './lib/service';
import { type BenchContext, type BenchRow, below, round } from './lib/types';

export const name = 'start-up';

export async function run(ctx: BenchContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  if (!ctx.embedded) return rows;
  await withDataDir(async (dir) => {
    ctx.log('start-up: first start, then restart (embedded)');
    const first = await startService(commonEnv(dir));
    await stop(first.child);
    const again = await startService(commonEnv(dir));
    await stop(again.child);
    rows.push({
      figure: 'first start to healthy, empty data dir (embedded)',
      value: round(first.startedInMs / 1000, 2),
      unit: 's',
      ...below(first.startedInMs / 1000, 10),
    });
    rows.push({
      figure: 'restart to healthy (embedded)',
      value: round(again.startedInMs / 1000, 2),
      unit: 's',
      ...below(again.startedInMs / 1000, 3),
    });
    // The CLI on the (stopped) service's data dir: a real command, not just its usage text.
    const started = performance.now();
    const cli = spawnSync(
      process.execPath,
      [
        join(ROOT, 'dist', 'src', 'cli.js'),
        'workspace:create',
        '--name',
        'Bench CLI',
        '--email',
        'cli@example.com',
        '--password',
        'password-123',
      ],
      { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...commonEnv(dir) } },
    );
    const cliMs = performance.now() - started;
    rows.push({
      figure: 'CLI workspace:create answers (embedded, service stopped)',
      value: round(cliMs / 1000, 2),
      unit: 's',
      ...below(cliMs / 1000, 2),
      note: `exit ${cli.status}${cli.status ? `: ${cli.stderr.slice(0, 200)}` : ''}`,
    });
  });
  return rows;
}
