/**
 * How the service is started: `npm start` runs `node <START_NODE_ARGS> dist/bundle/main.js` (package.json;
 * SERVICE_ENTRY, the bundle of tsc's dist/src/main.js that scripts/bundle.mjs makes),
 * the Docker image runs the same command line, and the bench starts its services with the node
 * options it reads from package.json here, so it measures what `npm start` runs (issue 16 item 5).
 *
 * `--v8-pool-size=1`: V8 keeps one background worker thread instead of four. Each thread that
 * allocates gets its own glibc malloc arena, and V8's workers fill theirs with the optimising
 * compiler's memory (PGlite's WebAssembly tiered up, hot JavaScript) and keep it: 121 → 58 MB of
 * thread arenas in an idle embedded service, and the 100,000-row CSV commit's peak 381 → 336 MB at
 * the same CPU (docs/performance.md, "Session 24: embedded CSV memory"). It can only be given when
 * Node starts (no JavaScript runs before V8's platform exists), hence the command line.
 */
export const START_NODE_ARGS: readonly string[] = ['--v8-pool-size=1'];

/** The file `npm start` and the Docker image run (issue 16 item 6: one bundle instead of several hundred ES modules). */
export const SERVICE_ENTRY = 'dist/bundle/main.js';

/** The node options of a `node [options] FILE` command line (package.json's `start`), or null if it is not one. */
export function nodeOptionsOf(command: string, file: string): string[] | null {
  const words = command.trim().split(/\s+/);
  const at = words.indexOf(file);
  if (words[0] !== 'node' || at < 1 || at !== words.length - 1) return null;
  return words.slice(1, at);
}
