import { Injectable } from '@nestjs/common';
import { JobHandler } from 'src/core/queue/job-handler.decorator';
import { JobName, QueueName } from 'src/core/queue/job-names';
import { type OutboxRelayJobData, WebhookDispatcher } from '../webhooks/webhook-dispatcher.service';

/** Fans a workspace's new outbox rows out to its webhooks as delivery attempts. */
@Injectable()
export class OutboxRelayJob {
  constructor(private readonly dispatcher: WebhookDispatcher) {}

  @JobHandler({ name: JobName.DeveloperOutboxRelay, queue: QueueName.Webhooks, concurrency: 16, prepared: true })
  async handle(_data: OutboxRelayJobData): Promise<'success'> {
    await this.dispatcher.relay();
    return 'success';
  }
}
