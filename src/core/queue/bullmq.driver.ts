import { Logger } from '@nestjs/common';
import { type Job, type MinimalJob, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { JobName, QueueName } from './job-names';
import type { JobRegistry } from './job-registry';
import { type EnqueueOptions, type JobPayload, backoffFor } from './job-queue.port';

/** BullMQ job data: the payload plus the retry schedule chosen at enqueue time. */
interface Envelope {
  readonly payload: JobPayload;
  readonly backoffMs?: readonly number[];
}

const ENQUEUE_TIMEOUT_MS = 2_000;

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
 * Jobs on Redis through BullMQ. The producer has its own connection without an offline queue, and
 * each add races a timeout: while Redis is down, enqueue fails fast and the caller falls back inline
 * (STACK.md: `queue.add` never settles otherwise).
 */
export class BullMqDriver {
  private readonly logger = new Logger('BullMQ');
  private readonly producer: Redis;
  private readonly queues = new Map<QueueName, Queue>();
  private readonly workers: Worker[] = [];
  private readonly connections: Redis[] = [];

  constructor(
    private readonly url: string,
    private readonly prefix: string,
    private readonly registry: JobRegistry,
  ) {
    this.producer = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    this.producer.on('error', (error: Error) => this.logger.debug(`producer: ${error.message}`));
  }

  ready(): boolean {
    return this.producer.status === 'ready';
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
    if (!this.ready()) throw new EnqueueTimeoutError('Redis is not connected');
    const queue = this.queue(this.registry.get(name).queue);
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
    const add = specs.length === 1 ? queue.add(specs[0]!.name, specs[0]!.data, specs[0]!.opts) : queue.addBulk(specs);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new EnqueueTimeoutError('Redis did not accept the job in time')),
        ENQUEUE_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([add, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Starts one worker per queue that has handlers (worker and all roles only). */
  startWorkers(): void {
    const byQueue = new Map<QueueName, number>();
    for (const job of this.registry.all())
      byQueue.set(job.queue, Math.max(byQueue.get(job.queue) ?? 1, job.concurrency));
    for (const [queue, concurrency] of byQueue) {
      const connection = new Redis(this.url, { maxRetriesPerRequest: null });
      connection.on('error', () => undefined);
      this.connections.push(connection);
      const worker = new Worker(
        queue,
        (job: Job<Envelope>) => this.registry.execute(job.name as JobName, job.data.payload),
        {
          connection,
          prefix: this.prefix,
          concurrency,
          settings: {
            backoffStrategy: (attemptsMade: number, _type?: string, _err?: Error, job?: MinimalJob) =>
              backoffFor(attemptsMade, (job?.data as Envelope | undefined)?.backoffMs),
          },
        },
      );
      worker.on('error', (error: Error) => this.logger.debug(`worker ${queue}: ${error.message}`));
      worker.on('failed', (job: Job | undefined, error: Error) => {
        if (job && job.attemptsMade >= (job.opts.attempts ?? 1))
          this.logger.warn({ job: job.name, err: error.message }, 'Job failed');
      });
      this.workers.push(worker);
    }
  }

  /** Job counts per queue and state (for /metrics). */
  async counts(names: readonly QueueName[]): Promise<{ queue: string; state: string; count: number }[]> {
    const rows: { queue: string; state: string; count: number }[] = [];
    for (const name of names) {
      const counts = await this.queue(name).getJobCounts('waiting', 'active', 'delayed', 'failed');
      for (const [state, count] of Object.entries(counts)) rows.push({ queue: name, state, count });
    }
    return rows;
  }

  private queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.producer, prefix: this.prefix });
      queue.on('error', (error: Error) => this.logger.debug(`queue ${name}: ${error.message}`));
      this.queues.set(name, queue);
    }
    return queue;
  }

  async close(): Promise<void> {
    // worker.close() waits forever while Redis is down (STACK.md): force it then, and bound it anyway.
    const redisDown = this.producer.status !== 'ready' || this.connections.some((c) => c.status !== 'ready');
    const closing = Promise.all([
      ...this.workers.map((worker) => worker.close(redisDown)),
      ...[...this.queues.values()].map((queue) => queue.close()),
    ]).catch(() => undefined);
    await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    this.producer.disconnect();
    for (const connection of this.connections) connection.disconnect();
  }
}
