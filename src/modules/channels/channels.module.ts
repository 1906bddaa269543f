import { Module } from '@nestjs/common';
import { ChannelDirectory } from './channel-directory.service';
import { ChannelLookupRepository } from './channel-lookup.repository';
import { ChannelSecretsService } from './channel-secrets.service';
import { ChannelsController } from './channels.controller';
import { ChannelsRepository } from './channels.repository';
import { ChannelsService } from './channels.service';
import { InboundEventsSweepRepository } from './events/inbound-events-sweep.repository';
import { InboundEventsRepository } from './events/inbound-events.repository';
import { InboundEventsService } from './events/inbound-events.service';
import { InboundRecoveryService } from './events/inbound-recovery.service';
import { ChannelAdapters } from './platforms/channel-adapters';
import { ChannelPlatforms } from './platforms/channel-platforms.service';
import { ChannelReplyTokensRepository } from './platforms/channel-reply-tokens.repository';
import { PLATFORM_PROVIDERS } from './platforms/platform-adapters';
import { PlatformHttp } from './platforms/platform-http.service';
import { CustomChannelInboundController } from './webhooks/custom-channel-inbound.controller';
import { InboundWebhooksService } from './webhooks/inbound-webhooks.service';
import { PlatformWebhooksController } from './webhooks/platform-webhooks.controller';

/**
 * Channel connections and one ChannelAdapter per platform (registered by type in
 * `platforms/platform-adapters.ts`), signed webhook receivers and the durable inbound event log.
 * Processing the events is the inbox module's (it owns conversations).
 */
@Module({
  controllers: [ChannelsController, PlatformWebhooksController, CustomChannelInboundController],
  providers: [
    ChannelsRepository,
    ChannelLookupRepository,
    ChannelSecretsService,
    ChannelDirectory,
    ChannelsService,
    InboundEventsRepository,
    InboundEventsSweepRepository,
    InboundEventsService,
    InboundRecoveryService,
    InboundWebhooksService,
    PlatformHttp,
    ...PLATFORM_PROVIDERS,
    ChannelAdapters,
    ChannelReplyTokensRepository,
    ChannelPlatforms,
  ],
  exports: [ChannelsService, ChannelDirectory, InboundEventsService, InboundRecoveryService, ChannelPlatforms],
})
export class ChannelsModule {}
