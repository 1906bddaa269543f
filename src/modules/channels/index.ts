/** What other modules may use from the channels module. */
export { ChannelsModule } from './channels.module';
export { ChannelsService } from './channels.service';
export { ChannelDirectory, type FoundConnection } from './channel-directory.service';
export { ChannelPlatforms } from './platforms/channel-platforms.service';
export type { ChannelAdapter, WebhookRequest, WebhookHeaders, NewConnection } from './platforms/channel-adapter';
export { InboundEventsService, type InboundEventJobData } from './events/inbound-events.service';
export { InboundRecoveryService, INBOUND_STARTUP_SWEEP_DELAY_MS } from './events/inbound-recovery.service';
export type { InboundEventEntity as InboundEvent, InboundEventOutcome } from './events/inbound-event.entity';
export * from './channel.types';
