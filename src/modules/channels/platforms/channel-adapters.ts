import { Inject, Injectable } from '@nestjs/common';
import { AppException } from 'src/core/errors/app.exception';
import { CHANNEL_TYPES, type ChannelType } from '../channel.types';
import type { ChannelAdapter } from './channel-adapter';

/** The injection token of the adapters list (see platform-adapters.ts). */
export const CHANNEL_ADAPTERS = Symbol('CHANNEL_ADAPTERS');

/**
 * The adapters by channel type and by webhook name. Start-up fails when a type in CHANNEL_TYPES has
 * no adapter, or two adapters claim one type or one webhook name.
 */
@Injectable()
export class ChannelAdapters {
  private readonly byType = new Map<ChannelType, ChannelAdapter>();
  private readonly byWebhook = new Map<string, ChannelAdapter>();

  constructor(@Inject(CHANNEL_ADAPTERS) adapters: readonly ChannelAdapter[]) {
    for (const adapter of adapters) {
      for (const type of adapter.types) {
        if (this.byType.has(type)) throw new Error(`Two channel adapters serve ${type}`);
        this.byType.set(type, adapter);
      }
      if (this.byWebhook.has(adapter.webhook)) throw new Error(`Two channel adapters receive "${adapter.webhook}"`);
      this.byWebhook.set(adapter.webhook, adapter);
    }
    const missing = CHANNEL_TYPES.filter((type) => !this.byType.has(type));
    if (missing.length) throw new Error(`No channel adapter for ${missing.join(', ')}`);
  }

  forType(type: ChannelType): ChannelAdapter {
    const adapter = this.byType.get(type);
    if (!adapter) throw new Error(`No channel adapter for ${type}`);
    return adapter;
  }

  /** The adapter receiving `/webhooks/<name>`; 404 for a name no adapter has. */
  forWebhook(name: string): ChannelAdapter {
    const adapter = this.byWebhook.get(name);
    if (!adapter) throw AppException.notFound('Webhook');
    return adapter;
  }
}
