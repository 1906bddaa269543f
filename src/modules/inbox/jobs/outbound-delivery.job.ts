import { Injectable } from '@nestjs/common';
import { JobHandler } from 'src/core/queue/job-handler.decorator';
import { JobName, QueueName } from 'src/core/queue/job-names';
import {
  type DeliveryOutcome,
  type OutboundDeliveriesJobData,
  OutboundDeliveryService,
  type OutboundDeliveryJobData,
} from '../outbound/outbound-delivery.service';

/** One delivery attempt of one outbound message. Never throws: retries are driven by the message row. */
@Injectable()
export class OutboundDeliveryJob {
  constructor(private readonly delivery: OutboundDeliveryService) {}

  @JobHandler({ name: JobName.OutboundMessageDeliver, queue: QueueName.Outbound, concurrency: 10, prepared: true })
  handle(data: OutboundDeliveryJobData): Promise<DeliveryOutcome> {
    return this.delivery.deliver(data.messageId, data.conversationId);
  }
}

/** The first attempts of replies stored together (a pipeline group's answers), side by side. */
@Injectable()
export class OutboundDeliveriesJob {
  constructor(private readonly delivery: OutboundDeliveryService) {}

  @JobHandler({ name: JobName.OutboundMessagesDeliver, queue: QueueName.Outbound, concurrency: 10, prepared: true })
  handle(data: OutboundDeliveriesJobData): Promise<DeliveryOutcome[]> {
    return this.delivery.deliverAll(data.deliveries);
  }
}
