import { SetMetadata } from '@nestjs/common';
import type { JobName, QueueName } from './job-names';

export const JOB_HANDLER = Symbol('JOB_HANDLER');

export interface JobHandlerOptions {
  readonly name: JobName;
  readonly queue: QueueName;
  /** Concurrent jobs of this queue per worker process (BullMQ). */
  readonly concurrency?: number;
}

/** Marks a provider method as the handler of one job (immich's @OnJob). */
export const JobHandler = (options: JobHandlerOptions): MethodDecorator => SetMetadata(JOB_HANDLER, options);
