import type { JobName } from './job-names';

/** Every payload names its workspace; the runner executes the handler inside that workspace's context. */
export interface JobPayload {
  readonly workspaceId: string;
}

export interface EnqueueOptions {
  /** Deterministic id: a second enqueue with the same id while the first is pending is a no-op. */
  readonly jobId?: string;
  readonly delayMs?: number;
  /** Total attempts including the first (default 1). */
  readonly attempts?: number;
  /** Wait before retry n (ms); the last value repeats. Default: 1s, 5s, 30s. */
  readonly backoffMs?: readonly number[];
}

export type JobBackend = 'redis' | 'inline';

/** The port services enqueue through; the driver behind it is BullMQ or in-process. */
export interface JobQueue {
  enqueue<T extends JobPayload>(name: JobName, data: T, options?: EnqueueOptions): Promise<void>;
  /** Several jobs of one name in one round trip (BullMQ `addBulk`); same rules as `enqueue` for each. */
  enqueueMany<T extends JobPayload>(name: JobName, jobs: readonly { data: T; options?: EnqueueOptions }[]): Promise<void>;
  /**
   * `count` events whose jobs are `name` were just acknowledged to their senders (webhook acks; the
   * caller reports once per batch). Above PIPELINE_YIELD_ACK_RATE per second the BullMQ workers of a
   * queue whose handlers yield to acks lower their concurrency (core/queue/pipeline-yield.ts); a
   * no-op for in-process jobs. Never throws, never waits.
   */
  acknowledged(name: JobName, count: number): void;
  /**
   * Which of `jobIds` (of jobs `name`) are still waiting, delayed or running: a recovery sweep leaves
   * the work of those to their jobs. Never throws: an id whose state cannot be read is not pending
   * (the sweep then re-queues it, which is safe, only wasted work).
   */
  pendingJobs(name: JobName, jobIds: readonly string[]): Promise<Set<string>>;
  /** What runs jobs right now (`inline` also when Redis is configured but stopped answering). */
  backend(): JobBackend;
}

export const JOB_QUEUE = Symbol('JOB_QUEUE');

export const DEFAULT_BACKOFF_MS: readonly number[] = [1_000, 5_000, 30_000];

export function backoffFor(attempt: number, delays: readonly number[] = DEFAULT_BACKOFF_MS): number {
  if (delays.length === 0) return 0;
  return delays[Math.min(attempt - 1, delays.length - 1)] ?? 0;
}
