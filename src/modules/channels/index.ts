/** What other modules may use from the channels module. */
export { ChannelsModule } from './channels.module';
export { ChannelsService } from './channels.service';
export { ChannelDirectory, type FoundConnection } from './channel-directory.service';
export { ChannelPlatforms } from './platforms/channel-platforms.service';
export type { ChannelAdapter, WebhookRequest, WebhookHeaders, NewConnection } from './platforms/channel-adapter';
export { CustomInboundMessageDto } from './dto/custom-inbound.dto';
export * from './channel.types';
