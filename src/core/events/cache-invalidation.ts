import { Injectable } from '@nestjs/common';

/** Topics whose writes make cached look-ups stale. */
export type CacheTopic = 'channels' | 'workspace-plans';

/**
 * In-process invalidation of small read caches (issue 16: the webhook receivers' connection cache).
 * A writer bumps a topic after its change; a cache remembers the versions it was filled under and
 * drops everything when one moved. Other processes (a second API replica, the CLI) are not told:
 * caches that depend on this keep entries for a short time only and say how long.
 */
@Injectable()
export class CacheInvalidation {
  private readonly versions = new Map<CacheTopic, number>();

  bump(topic: CacheTopic): void {
    this.versions.set(topic, (this.versions.get(topic) ?? 0) + 1);
  }

  version(topic: CacheTopic): number {
    return this.versions.get(topic) ?? 0;
  }
}
