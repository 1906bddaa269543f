import { DatabaseModule } from 'src/core/database/database.module';
import { ChannelConnectionEntity } from './channel-connection.entity';
import { ChannelReplyTokenEntity } from './platforms/channel-reply-token.entity';
import { Module } from '@nestjs/common';
import { ChannelDirectory } from './channel-directory.service';
import { ChannelLookupRepository } from './channel-lookup.repository';
import { ChannelSecretsService } from './channel-secrets.service';
import { ChannelsController } from './channels.controller';
import { ChannelsRepository } from './channels.repository';
import { ChannelsService } from './channels.service';
import { ChannelAdapters } from './platforms/channel-adapters';
import { ChannelPlatforms } from './platforms/channel-platforms.service';
import { ChannelReplyTokensRepository } from './platforms/channel-reply-tokens.repository';
import { PLATFORM_PROVIDERS } from './platforms/platform-adapters';
import { PlatformHttp } from './platforms/platform-http.service';

/**
 * Channel connections and one ChannelAdapter per platform (registered by type in
 * `platforms/platform-adapters.ts`). Receiving, storing and processing inbound events is the
 * inbound module's; it reaches the platforms through ChannelPlatforms and ChannelDirectory.
 */
@Module({
  imports: [DatabaseModule.forEntities([ChannelConnectionEntity, ChannelReplyTokenEntity])],
  controllers: [ChannelsController],
  providers: [
    ChannelsRepository,
    ChannelLookupRepository,
    ChannelSecretsService,
    ChannelDirectory,
    ChannelsService,
    PlatformHttp,
    ...PLATFORM_PROVIDERS,
    ChannelAdapters,
    ChannelReplyTokensRepository,
    ChannelPlatforms,
  ],
  exports: [ChannelsService, ChannelDirectory, ChannelPlatforms],
})
export class ChannelsModule {}
