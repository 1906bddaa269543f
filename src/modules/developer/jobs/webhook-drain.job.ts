import { Injectable } from '@nestjs/common';
import { JobHandler } from 'src/core/queue/job-handler.decorator';
import { JobName, QueueName } from 'src/core/queue/job-names';
import { type DrainTally, type WebhookDrainJobData, WebhookDispatcher } from '../webhooks/webhook-dispatcher.service';

/** A webhook's due attempts, a batch at a time; the rows decide what is due (a job never drives retries itself). */
@Injectable()
export class WebhookDrainJob {
  constructor(private readonly dispatcher: WebhookDispatcher) {}

  @JobHandler({ name: JobName.DeveloperWebhookDrain, queue: QueueName.Webhooks, concurrency: 16, prepared: true })
  async handle(data: WebhookDrainJobData): Promise<DrainTally> {
    return this.dispatcher.drain(data.webhookId);
  }
}
