import { Logger } from '@nestjs/common';
import type { Queue, RedisOptions } from 'bullmq';
import { Redis } from 'ioredis';
import type { JobName, QueueName } from './job-names';
import type { JobRegistry } from './job-registry';
import type { EnqueueOptions, JobPayload } from './job-queue.port';
import { YIELD_FLAG_TTL_MS, YIELD_KEY, YieldMeter } from './pipeline-yield';

/** BullMQ job data: the payload plus the retry schedule chosen at enqueue time. */
export interface Envelope {
  readonly payload: JobPayload;
  readonly backoffMs?: readonly number[];
}

const ENQUEUE_TIMEOUT_MS = 2_000;
/** BullMQ job states in which the job will still run (or is running). */
const PENDING_STATES: ReadonlySet<string> = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children']);
const CLOSE_TIMEOUT_MS = 5_000;

export class EnqueueTimeoutError extends Error {}

/** Pings Redis once (1 s, no retries): BullMQ is wired only when this answers at boot. */
export async function redisAnswers(url: string): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/**
 * Connection options of the queues (producers): no offline queue and one retry, so an `add` while
 * Redis is down fails at once instead of never settling (STACK.md) — the caller then runs the job
 * in-process.
 */
export function producerConnection(url: string): RedisOptions {
  return { url, enableOfflineQueue: false, maxRetriesPerRequest: 1 };
}

/** Connection options of the workers: BullMQ's defaults (they wait through a Redis restart). */
export function workerConnection(url: string): RedisOptions {
  return { url, maxRetriesPerRequest: null };
}

/** Whether a BullMQ queue's or worker's Redis client is connected right now. */
export type ClientStatus = () => string | undefined;

/** Reads the status of a queue's (or worker's) own ioredis client once it exists. */
export function clientStatusOf(target: { getBackend(): { readonly client: Promise<unknown> } }): ClientStatus {
  let status: { status?: string } | null = null;
  target.getBackend().client.then(
    (client) => (status = client as { status?: string }),
    () => undefined,
  );
  return () => status?.status;
}

/**
 * Jobs on Redis through the queues that `BullModule.registerQueue` created (one per QueueName).
 * Each add races a timeout: while Redis is down, enqueue fails fast and the caller falls back inline.
 */
export class BullMqDriver {
  private readonly logger = new Logger('BullMQ');
  private readonly queues = new Map<string, { readonly queue: Queue; readonly status: ClientStatus }>();
  /** Ack rate per queue whose handlers yield to acks (pipeline-yield.ts); created on first report. */
  private readonly meters = new Map<QueueName, YieldMeter | null>();

  constructor(
    queues: readonly Queue[],
    private readonly registry: JobRegistry,
    private readonly yieldAckRate = 0,
  ) {
    for (const queue of queues) {
      // Without a listener ioredis prints every reconnect failure as an unhandled error.
      queue.on('error', (error: Error) => this.logger.debug(`queue ${queue.name}: ${error.message}`));
      this.queues.set(queue.name, { queue, status: clientStatusOf(queue) });
    }
  }

  /** Resolves once every queue's connection is up (bounded: Redis answered a PING just before). */
  async waitUntilReady(): Promise<void> {
    await withTimeout(
      Promise.all([...this.queues.values()].map(({ queue }) => queue.waitUntilReady())),
      ENQUEUE_TIMEOUT_MS,
    ).catch(() => undefined);
  }

  ready(): boolean {
    const queues = [...this.queues.values()];
    return queues.length > 0 && queues.every(({ status }) => status() === 'ready');
  }

  async enqueue<T extends JobPayload>(name: JobName, data: T, options: EnqueueOptions = {}): Promise<void> {
    await this.enqueueMany(name, [{ data, options }]);
  }

  /** One `add` (one job) or one `addBulk` (several, one round trip); rejects when Redis does not take them in time. */
  async enqueueMany<T extends JobPayload>(
    name: JobName,
    jobs: readonly { data: T; options?: EnqueueOptions }[],
  ): Promise<void> {
    if (jobs.length === 0) return;
    const { queue, status } = this.entry(this.registry.get(name).queue);
    if (status() !== 'ready') throw new EnqueueTimeoutError('Redis is not connected');
    const specs = jobs.map(({ data, options = {} }) => ({
      name,
      data: { payload: data, backoffMs: options.backoffMs } satisfies Envelope,
      opts: {
        // BullMQ refuses ':' in custom ids (its key separator).
        jobId: options.jobId?.replaceAll(':', '_'),
        delay: options.delayMs,
        attempts: Math.max(1, options.attempts ?? 1),
        backoff: { type: 'schedule' },
        removeOnComplete: { count: 1000 },
        removeOnFail: { count: 5000 },
      },
    }));
    const add: Promise<unknown> =
      specs.length === 1 ? queue.add(specs[0]!.name, specs[0]!.data, specs[0]!.opts) : queue.addBulk(specs);
    await withTimeout(add, ENQUEUE_TIMEOUT_MS, () => new EnqueueTimeoutError('Redis did not accept the job in time'));
  }

  /**
   * Counts acknowledged events of `name`; while their rate is at or above the yield rate, sets the
   * queue's yield flag (one SET with a TTL per window, not awaited; a failure only means the workers
   * do not yield this time).
   */
  acknowledged(name: JobName, count: number): void {
    const job = this.registry.get(name);
    let meter = this.meters.get(job.queue);
    if (meter === undefined) {
      const yields = this.yieldAckRate > 0 && this.registry.all().some((j) => j.queue === job.queue && j.yieldsToAcks);
      meter = yields ? new YieldMeter(this.yieldAckRate, performance.now()) : null;
      this.meters.set(job.queue, meter);
    }
    if (!meter?.record(count, performance.now())) return;
    const { queue, status } = this.entry(job.queue);
    if (status() !== 'ready') return;
    const backend = queue.getBackend();
    backend.client.then(
      (client) => client.set(backend.toKey(YIELD_KEY), '1', { PX: YIELD_FLAG_TTL_MS }).catch(() => undefined),
      () => undefined,
    );
  }

  /**
   * The ids of `jobIds` whose job is waiting, delayed or active: one state read per id, all sent at
   * once and bounded in time. Unknown, completed and failed jobs are not pending; so is every id when
   * Redis does not answer (JobQueue.pendingJobs).
   */
  async pendingJobs(name: JobName, jobIds: readonly string[]): Promise<Set<string>> {
    const pending = new Set<string>();
    const { queue, status } = this.entry(this.registry.get(name).queue);
    if (jobIds.length === 0 || status() !== 'ready') return pending;
    const states = await withTimeout(
      Promise.all(jobIds.map((id) => queue.getJobState(id.replaceAll(':', '_')))),
      ENQUEUE_TIMEOUT_MS,
    ).catch(() => null);
    states?.forEach((state, i) => {
      if (PENDING_STATES.has(state)) pending.add(jobIds[i]!);
    });
    return pending;
  }

  /** Job counts per queue and state (for /metrics). */
  async counts(names: readonly QueueName[]): Promise<{ queue: string; state: string; count: number }[]> {
    const rows: { queue: string; state: string; count: number }[] = [];
    for (const name of names) {
      const counts = await this.entry(name).queue.getJobCounts('waiting', 'active', 'delayed', 'failed');
      for (const [state, count] of Object.entries(counts)) rows.push({ queue: name, state, count });
    }
    return rows;
  }

  /**
   * Closes the queues before @nestjs/bullmq does, bounded. While Redis is down a graceful close
   * fails (QUIT cannot be sent) and BullMQ's disconnect waits for an `end` event a reconnecting
   * client never emits, so a queue whose client is not ready is closed by force (its backend
   * disconnects without waiting); Queue.close() then settles on that same, finished close.
   */
  async close(): Promise<void> {
    const closing = [...this.queues.values()].map(async ({ queue, status }) => {
      if (status() !== 'ready') await queue.getBackend().close(true);
      await queue.close();
    });
    await withTimeout(Promise.allSettled(closing), CLOSE_TIMEOUT_MS).catch(() => undefined);
  }

  private entry(name: QueueName): { readonly queue: Queue; readonly status: ClientStatus } {
    const entry = this.queues.get(name);
    if (!entry) throw new Error(`Queue "${name}" is not registered with BullModule`);
    return entry;
  }
}

/** Races `promise` against a timer; rejects with `error()` (or a plain Error) when the timer wins. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, error?: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(error ? error() : new Error(`timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
