import { Injectable } from '@nestjs/common';
import { JobHandler } from 'src/core/queue/job-handler.decorator';
import { JobName, QueueName } from 'src/core/queue/job-names';
import {
  type DeliveryOutcome,
  OutboundDeliveryService,
  type OutboundDeliveryJobData,
} from '../outbound/outbound-delivery.service';

/** One delivery attempt of one outbound message. Never throws: retries are driven by the message row. */
@Injectable()
export class OutboundDeliveryJob {
  constructor(private readonly delivery: OutboundDeliveryService) {}

  @JobHandler({ name: JobName.OutboundMessageDeliver, queue: QueueName.Outbound, concurrency: 10 })
  handle(data: OutboundDeliveryJobData): Promise<DeliveryOutcome> {
    return this.delivery.deliver(data.messageId, data.conversationId);
  }
}
