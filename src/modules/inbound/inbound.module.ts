import { DatabaseModule } from 'src/core/database/database.module';
import { InboundEventEntity } from './events/inbound-event.entity';
import { Module } from '@nestjs/common';
import { ChannelsModule } from 'src/modules/channels';
import { ContactsModule } from 'src/modules/contacts';
import { InboxModule } from 'src/modules/inbox';
import { InboundEventsController } from './events/inbound-events.controller';
import { InboundEventsSweepRepository } from './events/inbound-events-sweep.repository';
import { InboundEventsRepository } from './events/inbound-events.repository';
import { InboundEventsService } from './events/inbound-events.service';
import { InboundRecoveryService } from './events/inbound-recovery.service';
import { InboundEventJob } from './inbound-event.job';
import { InboundEventBatcher } from './pipeline/inbound-event-batcher';
import { InboundEventRunner } from './pipeline/inbound-event-runner';
import { InboundPipeline } from './pipeline/inbound-pipeline';
import { InboundProcessor } from './pipeline/inbound-processor';
import { SenderProfilesService } from './pipeline/sender-profiles.service';
import { CustomChannelFastAck } from './webhooks/custom-channel-fast-ack';
import { CustomChannelInboundController } from './webhooks/custom-channel-inbound.controller';
import { InboundWebhooksService } from './webhooks/inbound-webhooks.service';
import { PlatformWebhooksController } from './webhooks/platform-webhooks.controller';

/**
 * The inbound path, top to bottom (docs/architecture.md, "The inbound story"): `webhooks/` (signed
 * receivers) → `events/` (the durable `inbound_events` log, its sweep and the events endpoints) →
 * `inbound-event.job.ts` → `pipeline/` (runner, processor, the stage registry other modules add to).
 */
@Module({
  imports: [DatabaseModule.forEntities([InboundEventEntity]), ChannelsModule, ContactsModule, InboxModule],
  controllers: [PlatformWebhooksController, CustomChannelInboundController, InboundEventsController],
  providers: [
    InboundWebhooksService,
    CustomChannelFastAck,
    InboundEventsRepository,
    InboundEventsSweepRepository,
    InboundEventsService,
    InboundRecoveryService,
    InboundEventJob,
    InboundEventRunner,
    InboundEventBatcher,
    InboundProcessor,
    SenderProfilesService,
    InboundPipeline,
  ],
  exports: [InboundPipeline, InboundRecoveryService],
})
export class InboundModule {}
