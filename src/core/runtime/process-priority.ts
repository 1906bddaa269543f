import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** What `lowerProcessPriority` did: the nice value asked for and the threads it was applied to. */
export interface PriorityResult {
  readonly nice: number;
  readonly threads: number;
  /** Threads whose priority could not be changed (permission, a thread that just ended). */
  readonly failed: number;
}

/**
 * Lowers this process's CPU priority to `nice` (0 = normal … 19 = lowest; issue 16, DESIGN §13): the
 * `worker` role runs throughput work (the pipeline, deliveries) that must not take the CPU from the
 * latency work of the `api` role (webhook acks) on the same machine. Raising a priority again needs
 * privileges, so this only ever lowers it; 0 leaves the process alone.
 *
 * On Linux a nice value belongs to a thread, not to the process: every thread that exists now
 * (`/proc/self/task`: the main thread, V8's and libuv's helpers) gets it, and threads started later
 * inherit it from the main thread. Elsewhere the process's priority is set (`os.setPriority(0, …)`).
 * Never throws: a refused change leaves the process as it was and is reported in `failed`.
 */
export function lowerProcessPriority(nice: number): PriorityResult {
  if (!Number.isInteger(nice) || nice <= 0) return { nice: 0, threads: 0, failed: 0 };
  const target = Math.min(19, nice);
  let threads: number[];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    threads = [0]; // not Linux: the calling process
  }
  let failed = 0;
  for (const tid of threads) {
    try {
      if (getPriority(tid) < target) setPriority(tid, target);
    } catch {
      failed++;
    }
  }
  return { nice: target, threads: threads.length, failed };
}

/**
 * The start-up rule (serve.ts): only the `worker` role lowers its priority, to WORKER_NICE; the
 * `api`, `all` (acks and jobs in one process) and `cli` roles keep theirs. Null when nothing was done.
 */
export function applyRolePriority(
  config: { readonly role: string; readonly workerNice: number },
  lower: (nice: number) => PriorityResult = lowerProcessPriority,
): PriorityResult | null {
  return config.role === 'worker' && config.workerNice > 0 ? lower(config.workerNice) : null;
}
