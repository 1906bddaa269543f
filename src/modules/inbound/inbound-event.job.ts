import { Injectable } from '@nestjs/common';
import { JobHandler } from 'src/core/queue/job-handler.decorator';
import { JobName, QueueName } from 'src/core/queue/job-names';
import type { JobPayload } from 'src/core/queue/job-queue.port';
import { InboundEventBatcher } from './pipeline/inbound-event-batcher';
import type { RunOutcome } from './pipeline/inbound-event-runner';

/** Payload of the `inbound` job: one stored event to process. */
export interface InboundEventJobData extends JobPayload {
  readonly eventId: string;
}

/**
 * Processes one stored inbound event, together with the other events this process's jobs hold at the
 * same time (InboundEventBatcher: one transaction for a group). Never throws: retries are driven by
 * the event row. Concurrency 48: while up to four groups of 12 run, the next jobs gather for the next ones.
 */
@Injectable()
export class InboundEventJob {
  constructor(private readonly batcher: InboundEventBatcher) {}

  @JobHandler({ name: JobName.InboundEventProcess, queue: QueueName.Inbound, concurrency: 48, yieldsToAcks: true })
  handle(data: InboundEventJobData): Promise<RunOutcome> {
    return this.batcher.submit(data.eventId);
  }
}
