import { type DynamicModule, Logger, Module, type Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import type { Queue } from 'bullmq';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { BullMqDriver, producerConnection, redisAnswers, workerConnection } from './bullmq.driver';
import { QueueName } from './job-names';
import { JOB_QUEUE } from './job-queue.port';
import { JobQueueService } from './job-queue.service';
import { JobRegistry } from './job-registry';

/**
 * The job port (JOB_QUEUE / JobQueueService) and the driver behind it, chosen once at boot:
 * - no REDIS_URL (or the CLI): in-process jobs; `@nestjs/bullmq` and `bullmq` are not loaded at all
 *   (they are required here, on the Redis path only: about 0.25 s of CPU at start-up otherwise);
 * - REDIS_URL set but Redis does not answer a PING (1 s): in-process for the process's lifetime
 *   (BullMQ does not recover cleanly from a Redis that was down at boot — STACK.md);
 * - Redis answers: `BullModule.forRootAsync` + `BullModule.registerQueue` (one queue per QueueName)
 *   and, in the `all` and `worker` roles, one `@Processor` per queue. The `api` role only produces.
 * Whatever the driver, an enqueue Redis does not accept in time runs in-process (JobQueueService).
 */
@Module({})
export class QueueModule {
  static async forRoot(config: AppConfig): Promise<DynamicModule> {
    const core: Provider[] = [JobRegistry, JobQueueService, { provide: JOB_QUEUE, useExisting: JobQueueService }];
    const module: DynamicModule = {
      module: QueueModule,
      global: true,
      imports: [DiscoveryModule],
      providers: core,
      exports: [JOB_QUEUE, JobQueueService],
    };
    const url = config.redis.url;
    if (!url || config.role === 'cli') return module;
    if (!(await redisAnswers(url))) {
      new Logger('Jobs').warn('REDIS_URL is set but Redis does not answer: running jobs in-process');
      return module;
    }
    // One after the other: Jest's ES module linker fails two concurrent imports sharing a dependency.
    const { BullModule, getQueueToken } = await import('@nestjs/bullmq');
    const { processorFor } = await import('./bullmq.processor.js');
    const queues = Object.values(QueueName);
    const runsWorkers = config.role === 'all' || config.role === 'worker';
    return {
      ...module,
      imports: [
        DiscoveryModule,
        BullModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (app: AppConfig) => ({ connection: producerConnection(url), prefix: app.redis.prefix }),
        }),
        BullModule.registerQueue(...queues.map((name) => ({ name }))),
      ],
      providers: [
        ...core,
        {
          provide: BullMqDriver,
          inject: [JobRegistry, ...queues.map((name) => getQueueToken(name))],
          useFactory: (registry: JobRegistry, ...registered: Queue[]) =>
            new BullMqDriver(registered, registry, config.pipelineYield.ackRate),
        },
        ...(runsWorkers ? queues.map((name) => processorFor(name, workerConnection(url), config.pipelineYield)) : []),
      ],
    };
  }
}
