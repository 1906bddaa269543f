import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { CacheInvalidation, TopicCache } from 'src/core/events/cache-invalidation';
import { getTenantContext } from 'src/core/tenancy/tenant-context';
import { type ChannelLookupRow, ChannelLookupRepository } from './channel-lookup.repository';
import { ChannelSecretsService } from './channel-secrets.service';
import type { ChannelType, OpenedConnection } from './channel.types';
import { ChannelsRepository } from './channels.repository';
import { sha256Hex } from './platforms/signature.util';

/** A connection a webhook names, with its workspace's plan; `open()` unseals its secrets. */
export interface FoundConnection extends ChannelLookupRow {
  open(): OpenedConnection;
}

/** A connection the webhook receivers' cache holds, secrets opened. */
export interface CachedConnection {
  readonly row: ChannelLookupRow;
  readonly connection: OpenedConnection;
}

/**
 * Finding connections and opening their secrets, for webhook receivers (platform adapters) and the
 * inbound processor. The `findActive…`/`findById` look-ups are SYSTEM (cross-tenant by design: a
 * webhook names a platform account, not a workspace); `getOpened` is scoped to the current workspace.
 */
@Injectable()
export class ChannelDirectory {
  /** Look-ups by id in flight (outside transactions): concurrent webhooks for one connection share one query. */
  private readonly inFlight = new Map<string, Promise<ChannelLookupRow | null>>();
  /** `findCached`: a connection and its plan, invalidated in every process by connection and plan writes. */
  private readonly acks: TopicCache<CachedConnection | null>;
  /** `getOpened` per workspace and id, trusted across processes (every connection write invalidates it). */
  private readonly opened: TopicCache<OpenedConnection>;

  constructor(
    private readonly lookup: ChannelLookupRepository,
    private readonly secrets: ChannelSecretsService,
    private readonly channels: ChannelsRepository,
    private readonly tx: TransactionHost,
    private readonly invalidation: CacheInvalidation,
  ) {
    this.opened = new TopicCache(invalidation, 'channels');
    this.acks = new TopicCache(invalidation, ['channels', 'workspace-plans']);
  }

  /** ACTIVE connections of these types for these platform account ids (one query for a batch). */
  async findActiveByRoutingKeys(types: readonly ChannelType[], keys: readonly string[]): Promise<FoundConnection[]> {
    return (await this.lookup.findActiveByRoutingKeys(types, keys)).map((row) => this.found(row));
  }

  /** The ACTIVE connection whose webhooks carry this secret token (Telegram); null when none. */
  async findActiveBySecretToken(token: string): Promise<FoundConnection | null> {
    const row = await this.lookup.findActiveBySecretTokenHash(sha256Hex(token));
    return row ? this.found(row) : null;
  }

  /** Whether the secret token belonged to a connection that was disconnected. */
  isDisconnectedSecretToken(token: string): Promise<boolean> {
    return this.lookup.existsDisconnectedBySecretTokenHash(sha256Hex(token));
  }

  /**
   * Any connection by id, whatever its status (the caller checks type and status). Outside a
   * transaction, a request arriving while a look-up of the same id is running shares its result
   * (single flight, no cache: nothing older than that query is ever used). Under a burst of webhooks
   * for one connection this takes the read off most acknowledgements (issue 16).
   */
  async findById(id: string): Promise<FoundConnection | null> {
    if (this.tx.inTransaction) {
      const own = await this.lookup.findById(id);
      return own ? this.found(own) : null;
    }
    let pending = this.inFlight.get(id);
    if (!pending) {
      pending = this.lookup.findById(id).finally(() => this.inFlight.delete(id));
      this.inFlight.set(id, pending);
    }
    const row = await pending;
    return row ? this.found(row) : null;
  }

  /**
   * The webhook acknowledgement's look-up (issue 16): `findById` with the secrets opened, from memory
   * while cross-process invalidation is up (a disconnect or plan change made by any process reaches it
   * at commit), so a burst of webhooks costs one query and one decryption, not one each. Not found is
   * never cached. Outside transactions only (null inside one: use `findById`).
   */
  async findCached(id: string): Promise<CachedConnection | null> {
    if (this.tx.inTransaction) return null;
    return this.acks.get(id, async () => {
      const found = await this.findById(id);
      return found ? { row: found, connection: found.open() } : null;
    });
  }

  /** Whether an ACTIVE connection has this subscription verify token (Meta's handshake). */
  isActiveVerifyToken(token: string): Promise<boolean> {
    return this.lookup.existsActiveVerifyTokenHash(sha256Hex(token));
  }

  /**
   * A connection of the current workspace with its secrets (delivery, processing); 404 when absent.
   * From memory while cross-process invalidation is up (CacheInvalidation): one read and one
   * decryption per connection and change, not per event. Absent is never cached.
   */
  async getOpened(id: string): Promise<OpenedConnection> {
    return this.opened.get(`${getTenantContext().workspaceId}:${id}`, async () =>
      this.secrets.open(await this.channels.getById(id)),
    );
  }

  private found(row: ChannelLookupRow): FoundConnection {
    return { ...row, open: () => this.secrets.open(row) };
  }
}
