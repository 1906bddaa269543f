import { Injectable, Logger } from '@nestjs/common';
import type { ContactProfile, OpenedConnection } from 'src/modules/channels';
import { ChannelPlatforms } from 'src/modules/channels';

const TTL_MS = 10 * 60_000;
const MAX_ENTRIES = 10_000;

/**
 * Names for senders whose webhooks carry none (the adapter's `fetchProfile`), read from the platform
 * before the event's transaction opens (never hold a transaction over the network). Best effort: a
 * failure only means the contact has no name yet. Cached briefly per process (a performance cache,
 * nothing depends on it for correctness).
 */
@Injectable()
export class SenderProfilesService {
  private readonly logger = new Logger('SenderProfiles');
  private readonly cache = new Map<string, { profile: ContactProfile | null; expires: number }>();

  constructor(private readonly platforms: ChannelPlatforms) {}

  async lookup(connection: OpenedConnection, senderKey: string | null): Promise<ContactProfile | null> {
    if (!senderKey) return null;
    const key = `${connection.id}:${senderKey}`;
    const hit = this.cache.get(key);
    if (hit && hit.expires > Date.now()) return hit.profile;
    let profile: ContactProfile | null = null;
    try {
      profile = await this.platforms.fetchProfile(connection, senderKey);
    } catch (error) {
      this.logger.debug({ err: error, channelId: connection.id }, 'Could not read a sender profile');
    }
    if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
    this.cache.set(key, { profile, expires: Date.now() + TTL_MS });
    return profile;
  }
}
