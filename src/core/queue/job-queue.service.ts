import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { sessionPriority } from 'src/core/database/session-priority';
import type { AppConfig } from 'src/core/config/app-config';
import { BullMqDriver } from './bullmq.driver';
import { InlineDriver } from './inline.driver';
import { JobName, QueueName } from './job-names';
import { jobFallbacks } from 'src/core/metrics/metrics';
import type { EnqueueOptions, JobBackend, JobPayload, JobQueue } from './job-queue.port';
import { JobRegistry } from './job-registry';

const EMBEDDED_INBOUND_CONCURRENCY = 2;
/** Embedded engine: the longest a job waits for webhook acks to leave the one session before it starts anyway. */
const EMBEDDED_YIELD_MAX_MS = 100;

/**
 * The JobQueue behind the port: BullMQ when REDIS_URL is set and answered at boot (QueueModule then
 * provides the BullMqDriver), in-process otherwise, and in-process for any enqueue Redis fails to
 * accept at run time.
 */
@Injectable()
export class JobQueueService implements JobQueue, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  readonly inline: InlineDriver;
  /** Jobs Redis did not accept and that ran in-process instead (visible for tests and diagnostics). */
  fallbacks = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    registry: JobRegistry,
    @Optional() @Inject(BullMqDriver) private readonly bull: BullMqDriver | null = null,
  ) {
    // On the embedded engine (one session) two inbound events at a time keep the session busy; more
    // only queue statements in front of webhook acknowledgements (issue 16).
    // Acks go first: a job waits (briefly) while acks are being stored (core/database/session-priority).
    this.inline = config.db.url
      ? new InlineDriver(registry)
      : new InlineDriver(
          registry,
          { [JobName.InboundEventProcess]: EMBEDDED_INBOUND_CONCURRENCY },
          { priority: sessionPriority, maxWaitMs: EMBEDDED_YIELD_MAX_MS },
        );
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.bull) return;
    await this.bull.waitUntilReady();
    this.logger.log(`Jobs run on BullMQ (${this.config.role === 'api' ? 'producer only' : 'with workers'})`);
  }

  async enqueue<T extends JobPayload>(name: JobName, data: T, options?: EnqueueOptions): Promise<void> {
    if (this.bull) {
      try {
        await this.bull.enqueue(name, data, options);
        return;
      } catch (error) {
        this.fallbacks++;
        jobFallbacks.inc();
        this.logger.warn({ job: name, err: (error as Error).message }, 'Redis unavailable: running job in-process');
      }
    }
    this.inline.enqueue(name, data, options);
  }

  async enqueueMany<T extends JobPayload>(
    name: JobName,
    jobs: readonly { data: T; options?: EnqueueOptions }[],
  ): Promise<void> {
    if (jobs.length === 0) return;
    if (this.bull) {
      try {
        await this.bull.enqueueMany(name, jobs);
        return;
      } catch (error) {
        this.fallbacks += jobs.length;
        jobFallbacks.inc(jobs.length);
        this.logger.warn({ job: name, err: (error as Error).message }, 'Redis unavailable: running jobs in-process');
      }
    }
    for (const job of jobs) this.inline.enqueue(name, job.data, job.options);
  }

  acknowledged(name: JobName, count: number): void {
    this.bull?.acknowledged(name, count);
  }

  /** Pending in BullMQ or in this process (jobs Redis did not take ran here). */
  async pendingJobs(name: JobName, jobIds: readonly string[]): Promise<Set<string>> {
    const pending = this.bull ? await this.bull.pendingJobs(name, jobIds) : new Set<string>();
    for (const id of jobIds) if (this.inline.isPending(name, id)) pending.add(id);
    return pending;
  }

  /** Queue depths for /metrics: BullMQ's counts per queue and state, plus pending in-process jobs. */
  async depths(): Promise<{ queue: string; state: string; count: number }[]> {
    const rows = [{ queue: 'inline', state: 'pending', count: this.inline.pendingCount }];
    if (this.bull?.ready()) rows.push(...(await this.bull.counts(Object.values(QueueName))));
    return rows;
  }

  backend(): JobBackend {
    return this.bull?.ready() ? 'redis' : 'inline';
  }

  /** Whether REDIS_URL is set (whether or not Redis answers). */
  get redisConfigured(): boolean {
    return this.config.redis.url !== null && this.config.role !== 'cli';
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.inline.close();
    await this.bull?.close();
  }
}
