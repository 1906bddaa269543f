import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { coldStart } from './cold-start';

/**
 * `npm run bench`: the speed and memory figures of DESIGN §13, measured on this machine.
 * Not part of `npm test`: timings belong here, never in assertions.
 *
 *   npm run bench                      # everything that can run here
 *   npm run bench -- inbox catalogue   # only those
 *
 * With DATABASE_URL (and REDIS_URL) set, the scripts also measure the real PostgreSQL (and BullMQ).
 */
const SCRIPTS: Record<string, { file: string; needs?: string }> = {
  inbox: { file: 'inbox.js' },
  catalogue: { file: 'catalogue.js' },
  conversations: { file: 'conversations.js', needs: 'DATABASE_URL' },
  analytics: { file: 'analytics.js', needs: 'DATABASE_URL' },
};

function runScript(file: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(__dirname, file)], { stdio: 'inherit', env: process.env });
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const wanted = (name: string) => only.length === 0 || only.some((o) => name.includes(o));
  let failed = 0;
  if (wanted('cold-start')) {
    process.stdout.write('\n## cold start (embedded database)\n');
    for (const [label, value] of Object.entries(await coldStart())) process.stdout.write(`${label}: ${value}\n`);
  }
  for (const [name, script] of Object.entries(SCRIPTS)) {
    if (!wanted(name)) continue;
    if (script.needs && !process.env[script.needs]) {
      process.stdout.write(`\n## ${name}: skipped (needs ${script.needs})\n`);
      continue;
    }
    process.stdout.write(`\n## ${name}\n`);
    if ((await runScript(script.file)) !== 0) failed++;
  }
  if (failed) process.exit(1);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
