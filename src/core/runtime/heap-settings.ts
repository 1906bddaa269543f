import { setFlagsFromString } from 'node:v8';

/**
 * V8 garbage-collector settings for the process that serves the API (issue 16 item 5, DESIGN §13: a
 * 100,000-row CSV import under 300 MB resident): the embedded engine's single process, where PGlite's
 * memory and V8's add up, and since session 26 the old generation's growth in the `all` and `api`
 * roles on PostgreSQL too (`leanHeapFlagsFor`; docs/performance.md, "Session 26"). Measured (docs/performance.md, "Session 22: embedded memory"):
 *
 * - `--heap-growing-percent=30`: after each full collection V8 lets the old generation grow to the live
 *   size × 1.3 before the next one, instead of up to ×4. The service's live heap stays ≈ 55–60 MB during a
 *   CSV commit, but its old generation reached 100–170 MB of garbage between two collections (the CSV
 *   reader's strings, each batch's JSON, protocol buffers). The dead Buffers among that garbage hold
 *   malloc memory until the collection that finds them, and glibc keeps what they held: 50 → 30 took
 *   the 100,000-row commit's peak 308 → 291 MB (main arena 61 → 49 MB) at the same CPU in session 25
 *   (docs/performance.md, "Session 25: embedded CSV memory"; 50 since session 22).
 * - `--semi-space-growth-factor=1`: the young generation keeps its initial size (1 MB semi-spaces)
 *   instead of doubling up to 2 × 16 MB, which it does within the first requests and never gives back.
 *
 * Both are read by V8 at every collection, so setting them at start (main.ts, before the application's
 * modules load) works wherever the service is started (`npm start`, the Docker image, the bench) — unlike
 * `--max-semi-space-size` or `MALLOC_ARENA_MAX`, which must be on the command line or in the environment.
 * A flag the operator gave (`node --heap-growing-percent=…`, `NODE_OPTIONS`) is left as given.
 */
export const LEAN_HEAP_FLAGS: readonly string[] = ['--heap-growing-percent=30', '--semi-space-growth-factor=1'];

/**
 * The flags a process gets: on the embedded engine both (one process); on PostgreSQL only the old
 * generation's growth, in the roles serving the API (the CSV imports run there). The small young
 * generation halved the PostgreSQL api's ack throughput (many more scavenges on the ack path: 3,101–
 * 3,273 → 1,622 req/s, session 26), and a `worker` keeps V8's defaults (it serves no imports; its
 * pipeline trades memory for CPU).
 */
export function leanHeapFlagsFor(embedded: boolean, role: string): readonly string[] {
  if (embedded) return LEAN_HEAP_FLAGS;
  return role === 'worker' ? [] : LEAN_HEAP_FLAGS.filter((flag) => flag.startsWith('--heap-growing-percent'));
}

/** The flags of `flags` that neither the command line nor NODE_OPTIONS set already. */
export function leanHeapFlagsToSet(
  execArgv: readonly string[],
  nodeOptions: string | undefined,
  flags: readonly string[] = LEAN_HEAP_FLAGS,
): string[] {
  const given = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)].map((arg) => flagName(arg));
  return flags.filter((flag) => !given.includes(flagName(flag)));
}

/** `--semi_space-growth-factor=2` → `semi-space-growth-factor` (V8 accepts `_` and `-` alike). */
function flagName(arg: string): string {
  return arg.replace(/^--/, '').split('=')[0]!.replaceAll('_', '-');
}

/** Applies `flags` (default: both) to this process, except those the operator gave; returns the flags set. */
export function applyLeanHeapSettings(
  execArgv: readonly string[],
  nodeOptions: string | undefined,
  flags: readonly string[] = LEAN_HEAP_FLAGS,
): string[] {
  const toSet = leanHeapFlagsToSet(execArgv, nodeOptions, flags);
  for (const flag of toSet) setFlagsFromString(flag);
  return toSet;
}
