import { coldStart } from './cold-start';

/**
 * `npm run bench`: the speed and memory figures of DESIGN §13, measured on this machine.
 * Not part of `npm test`: timings belong here, never in assertions.
 */
const BENCHES: Record<string, () => Promise<Record<string, number | string>>> = {
  'cold start': coldStart,
};

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  for (const [name, bench] of Object.entries(BENCHES)) {
    if (only.length && !only.some((o) => name.includes(o))) continue;
    process.stdout.write(`\n## ${name}\n`);
    const figures = await bench();
    for (const [label, value] of Object.entries(figures)) process.stdout.write(`${label}: ${value}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
