import { SetMetadata } from '@nestjs/common';
import type { JobName, QueueName } from './job-names';

export const JOB_HANDLER = Symbol('JOB_HANDLER');

export interface JobHandlerOptions {
  readonly name: JobName;
  readonly queue: QueueName;
  /** Concurrent jobs of this queue per worker process (BullMQ). */
  readonly concurrency?: number;
  /**
   * Background throughput work that yields to webhook acknowledgements: while the api acknowledges
   * at least PIPELINE_YIELD_ACK_RATE events per second, this queue's BullMQ workers run at
   * PIPELINE_YIELD_CONCURRENCY (core/queue/pipeline-yield.ts).
   */
  readonly yieldsToAcks?: boolean;
  /**
   * Hot, repeated work (issue 16): the handler's parameterised statements go out as named prepared
   * statements, parsed and planned once per connection (core/database/prepared-statements.ts).
   */
  readonly prepared?: boolean;
}

/** Marks a provider method as the handler of one job (immich's @OnJob). */
export const JobHandler = (options: JobHandlerOptions): MethodDecorator => SetMetadata(JOB_HANDLER, options);
