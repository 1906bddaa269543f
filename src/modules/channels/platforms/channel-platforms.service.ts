import { Injectable } from '@nestjs/common';
import type {
  ContactProfile,
  DeliveryResult,
  DeliveryTarget,
  OpenedConnection,
  OutboundContent,
} from '../channel.types';
import { CustomChannelPlatform } from './custom-channel.platform';
import { LinePlatform } from './line.platform';
import { MetaPlatform } from './meta.platform';
import { TelegramPlatform } from './telegram.platform';

/** One entry point for sending through, and reading profiles from, any connected platform. */
@Injectable()
export class ChannelPlatforms {
  constructor(
    private readonly meta: MetaPlatform,
    private readonly telegram: TelegramPlatform,
    private readonly line: LinePlatform,
    private readonly custom: CustomChannelPlatform,
  ) {}

  send(target: DeliveryTarget, content: OutboundContent): Promise<DeliveryResult> {
    switch (target.connection.type) {
      case 'MESSENGER':
      case 'INSTAGRAM':
      case 'WHATSAPP':
        return this.meta.send(target, content);
      case 'TELEGRAM':
        return this.telegram.send(target, content);
      case 'LINE':
        return this.line.send(target, content);
      case 'CUSTOM':
        return this.custom.send(target, content);
    }
  }

  /** The customer's profile for channels whose webhooks carry no name (Messenger, Instagram, LINE); null otherwise. */
  async fetchProfile(connection: OpenedConnection, externalId: string): Promise<ContactProfile | null> {
    switch (connection.type) {
      case 'MESSENGER':
      case 'INSTAGRAM':
        return this.meta.fetchProfile(connection, externalId);
      case 'LINE':
        return this.line.fetchProfile(connection, externalId);
      default:
        return null;
    }
  }
}
