import type { Provider } from '@nestjs/common';
import type { ChannelAdapter } from './channel-adapter';
import { CHANNEL_ADAPTERS } from './channel-adapters';
import { CustomChannelAdapter } from './custom/custom-channel.adapter';
import { CustomChannelPlatform } from './custom/custom-channel.platform';
import { LineAdapter } from './line/line.adapter';
import { LinePlatform } from './line/line.platform';
import { MetaAdapter } from './meta/meta.adapter';
import { MetaPlatform } from './meta/meta.platform';
import { TelegramAdapter } from './telegram/telegram.adapter';
import { TelegramPlatform } from './telegram/telegram.platform';

/** Every platform's adapter: a new platform's adapter class is added here (and nowhere else in the module). */
export const PLATFORM_ADAPTERS = [MetaAdapter, TelegramAdapter, LineAdapter, CustomChannelAdapter] as const;

/** The adapters' own API clients (internals of their adapter). */
export const PLATFORM_CLIENTS = [MetaPlatform, TelegramPlatform, LinePlatform, CustomChannelPlatform] as const;

/** The adapters, their clients and the CHANNEL_ADAPTERS list ChannelAdapters is built from. */
export const PLATFORM_PROVIDERS: Provider[] = [
  ...PLATFORM_ADAPTERS,
  ...PLATFORM_CLIENTS,
  {
    provide: CHANNEL_ADAPTERS,
    inject: [...PLATFORM_ADAPTERS],
    useFactory: (...adapters: ChannelAdapter[]): readonly ChannelAdapter[] => adapters,
  },
];
