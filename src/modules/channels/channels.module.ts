import { Module } from '@nestjs/common';
import { ChannelLookupRepository } from './channel-lookup.repository';
import { ChannelSecretsService } from './channel-secrets.service';
import { ChannelsController } from './channels.controller';
import { ChannelsRepository } from './channels.repository';
import { ChannelsService } from './channels.service';
import { InboundEventsSweepRepository } from './events/inbound-events-sweep.repository';
import { InboundEventsRepository } from './events/inbound-events.repository';
import { InboundEventsService } from './events/inbound-events.service';
import { InboundRecoveryService } from './events/inbound-recovery.service';
import { ChannelPlatforms } from './platforms/channel-platforms.service';
import { CustomChannelPlatform } from './platforms/custom-channel.platform';
import { LinePlatform } from './platforms/line.platform';
import { MetaPlatform } from './platforms/meta.platform';
import { PlatformHttp } from './platforms/platform-http.service';
import { TelegramPlatform } from './platforms/telegram.platform';
import { CustomChannelInboundController } from './webhooks/custom-channel-inbound.controller';
import { InboundWebhooksService } from './webhooks/inbound-webhooks.service';
import { LineWebhookController } from './webhooks/line-webhook.controller';
import { MetaWebhookController } from './webhooks/meta-webhook.controller';
import { TelegramWebhookController } from './webhooks/telegram-webhook.controller';

/**
 * Channel connections, platform adapters, signed webhook receivers and the durable inbound event log.
 * Processing the events is the inbox module's (it owns conversations); this module stores and
 * queues them, normalises them, and sends replies through the platforms.
 */
@Module({
  controllers: [
    ChannelsController,
    MetaWebhookController,
    TelegramWebhookController,
    LineWebhookController,
    CustomChannelInboundController,
  ],
  providers: [
    ChannelsRepository,
    ChannelLookupRepository,
    ChannelSecretsService,
    ChannelsService,
    InboundEventsRepository,
    InboundEventsSweepRepository,
    InboundEventsService,
    InboundRecoveryService,
    InboundWebhooksService,
    PlatformHttp,
    MetaPlatform,
    TelegramPlatform,
    LinePlatform,
    CustomChannelPlatform,
    ChannelPlatforms,
  ],
  exports: [ChannelsService, InboundEventsService, InboundRecoveryService, ChannelPlatforms],
})
export class ChannelsModule {}
