import { Injectable } from '@nestjs/common';
import { JobHandler } from 'src/core/queue/job-handler.decorator';
import { JobName, QueueName } from 'src/core/queue/job-names';
import type { JobPayload } from 'src/core/queue/job-queue.port';
import { InboundEventRunner, type RunOutcome } from './pipeline/inbound-event-runner';

/** Payload of the `inbound` job: one stored event to process. */
export interface InboundEventJobData extends JobPayload {
  readonly eventId: string;
}

/** Processes one stored inbound event. Never throws: retries are driven by the event row. */
@Injectable()
export class InboundEventJob {
  constructor(private readonly runner: InboundEventRunner) {}

  @JobHandler({ name: JobName.InboundEventProcess, queue: QueueName.Inbound, concurrency: 10, yieldsToAcks: true })
  handle(data: InboundEventJobData): Promise<RunOutcome> {
    return this.runner.run(data.eventId);
  }
}
