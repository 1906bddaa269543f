import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type Type,
} from '@nestjs/common';
import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import type { Job, MinimalJob, RedisOptions } from 'bullmq';
import { type ClientStatus, type Envelope, clientStatusOf, withTimeout } from './bullmq.driver';
import type { JobName, QueueName } from './job-names';
import { backoffFor } from './job-queue.port';
import { JobRegistry } from './job-registry';

const CLOSE_TIMEOUT_MS = 5_000;

/**
 * The BullMQ worker of one queue, as a `@Processor` class that `@nestjs/bullmq`'s explorer turns
 * into a Worker. Every job is dispatched to its `@JobHandler` through the JobRegistry (inside the
 * payload's workspace), so handlers do not know which driver runs them.
 *
 * One class per queue is made at module build time because the worker's connection (REDIS_URL) is
 * only known then: `@Processor`'s worker options are class metadata.
 */
export function processorFor(queue: QueueName, connection: RedisOptions): Type<WorkerHost> {
  @Processor(queue, {
    connection,
    // Started in onApplicationBootstrap, once the registry knows the handlers' concurrency.
    autorun: false,
    settings: {
      backoffStrategy: (attemptsMade: number, _type?: string, _err?: Error, job?: MinimalJob) =>
        backoffFor(attemptsMade, (job?.data as Envelope | undefined)?.backoffMs),
    },
  })
  @Injectable()
  class QueueProcessor extends WorkerHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
    private readonly logger = new Logger(`BullMQ:${queue}`);
    private status: ClientStatus = () => undefined;

    constructor(@Inject(JobRegistry) private readonly registry: JobRegistry) {
      super();
    }

    process(job: Job<Envelope>): Promise<unknown> {
      return this.registry.execute(job.name as JobName, job.data.payload);
    }

    onApplicationBootstrap(): void {
      const handlers = this.registry.all().filter((job) => job.queue === queue);
      this.worker.concurrency = Math.max(1, ...handlers.map((job) => job.concurrency));
      this.status = clientStatusOf(this.worker);
      this.worker.run().catch((error: Error) => this.logger.error({ err: error }, 'Worker stopped'));
    }

    @OnWorkerEvent('error')
    onError(error: Error): void {
      // Without a listener ioredis prints every reconnect failure as an unhandled error.
      this.logger.debug(`worker: ${error.message}`);
    }

    @OnWorkerEvent('failed')
    onFailed(job: Job | undefined, error: Error): void {
      if (job && job.attemptsMade >= (job.opts.attempts ?? 1))
        this.logger.warn({ job: job.name, err: error.message }, 'Job failed');
    }

    /**
     * Closes the worker before @nestjs/bullmq does (its onApplicationShutdown awaits `worker.close()`,
     * which never settles while Redis is down — STACK.md): forced when the connection is not ready,
     * and bounded either way. Its later close() call gets this same, settled promise.
     */
    async beforeApplicationShutdown(): Promise<void> {
      const force = this.status() !== 'ready';
      await withTimeout(this.worker.close(force), CLOSE_TIMEOUT_MS).catch(() => undefined);
    }
  }
  const words = queue.split(/[^a-z0-9]+/i).map((word) => word.charAt(0).toUpperCase() + word.slice(1));
  Object.defineProperty(QueueProcessor, 'name', { value: `${words.join('')}QueueProcessor` });
  return QueueProcessor;
}
