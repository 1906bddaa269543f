import { Injectable } from '@nestjs/common';
import { JobHandler } from 'src/core/queue/job-handler.decorator';
import { JobName, QueueName } from 'src/core/queue/job-names';
import { type WebhookDeliverJobData, WebhookDispatcher } from '../webhooks/webhook-dispatcher.service';

/** One delivery attempt; the row decides whether it is due (a job never drives retries itself). */
@Injectable()
export class WebhookDeliverJob {
  constructor(private readonly dispatcher: WebhookDispatcher) {}

  @JobHandler({ name: JobName.DeveloperWebhookDeliver, queue: QueueName.Webhooks, concurrency: 16 })
  async handle(data: WebhookDeliverJobData): Promise<string> {
    return this.dispatcher.deliver(data.deliveryId);
  }
}
