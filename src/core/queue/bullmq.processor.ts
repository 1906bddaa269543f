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
import type { PipelineYieldSettings } from 'src/core/config/app-config';
import { YIELD_KEY, YIELD_POLL_MS, YieldGovernor } from './pipeline-yield';

const CLOSE_TIMEOUT_MS = 5_000;

/**
 * The BullMQ worker of one queue, as a `@Processor` class that `@nestjs/bullmq`'s explorer turns
 * into a Worker. Every job is dispatched to its `@JobHandler` through the JobRegistry (inside the
 * payload's workspace), so handlers do not know which driver runs them.
 *
 * One class per queue is made at module build time because the worker's connection (REDIS_URL) is
 * only known then: `@Processor`'s worker options are class metadata.
 */
export function processorFor(
  queue: QueueName,
  connection: RedisOptions,
  yieldSettings: PipelineYieldSettings,
): Type<WorkerHost> {
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
    private yieldTimer: NodeJS.Timeout | null = null;
    /** Whether the worker runs at its lowered concurrency now (visible for tests and diagnostics). */
    yielding = false;

    constructor(@Inject(JobRegistry) private readonly registry: JobRegistry) {
      super();
    }

    process(job: Job<Envelope>): Promise<unknown> {
      return this.registry.execute(job.name as JobName, job.data.payload);
    }

    onApplicationBootstrap(): void {
      const handlers = this.registry.all().filter((job) => job.queue === queue);
      const full = Math.max(1, ...handlers.map((job) => job.concurrency));
      this.worker.concurrency = full;
      this.status = clientStatusOf(this.worker);
      this.worker.run().catch((error: Error) => this.logger.error({ err: error }, 'Worker stopped'));
      if (yieldSettings.ackRate > 0 && handlers.some((job) => job.yieldsToAcks)) this.watchYieldFlag(full);
    }

    /**
     * Reads the queue's yield flag (set by `api` processes while they acknowledge fast) every
     * YIELD_POLL_MS and runs at PIPELINE_YIELD_CONCURRENCY while the governor says so. BullMQ applies
     * a lower concurrency as running jobs finish (no job is interrupted). A failed read counts as no flag.
     */
    private watchYieldFlag(full: number): void {
      const governor = new YieldGovernor(yieldSettings.maxMs);
      const lowered = Math.min(full, yieldSettings.concurrency);
      const backend = this.worker.getBackend();
      const key = backend.toKey(YIELD_KEY);
      let reading = false;
      this.yieldTimer = setInterval(() => {
        if (reading || this.status() !== 'ready') return;
        reading = true;
        backend.client
          .then((client) => client.get(key))
          .catch(() => null)
          .then((flag) => {
            reading = false;
            const yielding = governor.shouldYield(flag !== null, performance.now());
            if (yielding === this.yielding) return;
            this.yielding = yielding;
            if (lowered === 0) {
              // Paused: running jobs finish, no new one is fetched until the flag goes (or the cap).
              // A pause or resume that failed is tried again at the next read (never left paused).
              void (yielding ? this.worker.pause(true) : this.worker.resume()).catch(() => {
                this.yielding = !yielding;
              });
            } else {
              this.worker.concurrency = yielding ? lowered : full;
            }
            this.logger.debug(yielding ? `yielding to acks (concurrency ${lowered})` : `full concurrency (${full})`);
          });
      }, YIELD_POLL_MS);
      this.yieldTimer.unref();
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
      if (this.yieldTimer) clearInterval(this.yieldTimer);
      const force = this.status() !== 'ready';
      await withTimeout(this.worker.close(force), CLOSE_TIMEOUT_MS).catch(() => undefined);
    }
  }
  const words = queue.split(/[^a-z0-9]+/i).map((word) => word.charAt(0).toUpperCase() + word.slice(1));
  Object.defineProperty(QueueProcessor, 'name', { value: `${words.join('')}QueueProcessor` });
  return QueueProcessor;
}
