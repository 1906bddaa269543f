import { DatabaseModule } from 'src/core/database/database.module';
import { ApiTokenEntity } from './api-token.entity';
import { Module } from '@nestjs/common';
import { ApiTokensController } from './api-tokens.controller';
import { ApiTokensRepository } from './api-tokens.repository';
import { ApiTokensService } from './api-tokens.service';
import { ApiTokenTouchJob } from './jobs/api-token-touch.job';
import { OutboxRelayJob } from './jobs/outbox-relay.job';
import { WebhookDrainJob } from './jobs/webhook-drain.job';
import { WebhooksController } from './webhooks.controller';
import { WebhookEntity } from './webhooks/webhook.entity';
import { WebhookDeliveryEntity } from './webhooks/webhook-delivery.entity';
import { WebhookDeliveriesRepository } from './webhooks/webhook-deliveries.repository';
import { WebhookDispatcher } from './webhooks/webhook-dispatcher.service';
import { WebhookHttpClient } from './webhooks/webhook-http.client';
import { WebhookOutboxSweepRepository } from './webhooks/webhook-outbox-sweep.repository';
import { WebhookRecoveryService } from './webhooks/webhook-recovery.service';
import { WebhooksRepository } from './webhooks/webhooks.repository';
import { WebhooksService } from './webhooks/webhooks.service';

/** API tokens and developer webhooks (with the relay of the event outbox to them). */
@Module({
  imports: [DatabaseModule.forEntities([ApiTokenEntity, WebhookEntity, WebhookDeliveryEntity])],
  controllers: [ApiTokensController, WebhooksController],
  providers: [
    ApiTokensRepository,
    ApiTokensService,
    ApiTokenTouchJob,
    WebhooksRepository,
    WebhookDeliveriesRepository,
    WebhookOutboxSweepRepository,
    WebhookHttpClient,
    WebhookDispatcher,
    WebhookRecoveryService,
    WebhooksService,
    OutboxRelayJob,
    WebhookDrainJob,
  ],
  exports: [ApiTokensService],
})
export class DeveloperModule {}
