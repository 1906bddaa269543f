import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  Optional,
} from '@nestjs/common';
import { Client } from 'pg';
import { APP_CONFIG } from 'src/core/config/config.constants';
import type { AppConfig } from 'src/core/config/app-config';
import { TransactionHost } from 'src/core/database/transaction-host';

/** Topics whose writes make cached look-ups stale. */
export type CacheTopic =
  | 'channels'
  | 'workspace-plans'
  | 'automations'
  | 'ai-agents'
  | 'ai-states'
  | 'catalogue'
  | 'ticket-settings'
  | 'default-queue'
  | 'sla-policies';

const TOPICS: readonly CacheTopic[] = [
  'channels',
  'workspace-plans',
  'automations',
  'ai-agents',
  'ai-states',
  'catalogue',
  'ticket-settings',
  'default-queue',
  'sla-policies',
];

/** The PostgreSQL notification channel every process listens on. */
export const CACHE_CHANNEL = 'sis_cache_invalidation';

/** Wait before reconnecting a lost LISTEN connection (caches are not trusted meanwhile). */
const RECONNECT_MS = 1_000;

/**
 * Invalidation of small configuration caches (issue 16): a writer reports a change of a topic; a
 * cache remembers the version it was filled under and drops what it holds when the version moved.
 *
 * - `bump(topic)`: this process only, at once (the webhook receivers' short-lived connection cache).
 * - `changed(topic)`, in the writing transaction: every process is told at commit. On PostgreSQL it
 *   is a `pg_notify` in that transaction (delivered at commit, never for a rollback) to the `LISTEN`
 *   connection each process keeps; on the embedded engine (one process) an after-commit bump.
 * - `trusted`: whether a cache may serve from memory. Embedded: always. PostgreSQL: only while the
 *   LISTEN connection is up — when it is lost every topic moves (nothing missed is served) and the
 *   caches read per event until it is back. A cache that does not check it must keep entries short.
 */
@Injectable()
export class CacheInvalidation implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('CacheInvalidation');
  private readonly versions = new Map<CacheTopic, number>();
  /** Topics changed by each open transaction (keyed by its manager): what it reads of them is not committed. */
  private readonly written = new WeakMap<object, Set<CacheTopic>>();
  private listener: Client | null = null;
  private listening = false;
  private stopped = false;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    @Optional() private readonly tx?: TransactionHost,
    @Optional() @Inject(APP_CONFIG) private readonly config?: AppConfig,
  ) {}

  /** PostgreSQL: opens the LISTEN connection (embedded: nothing to open, one process). */
  async onApplicationBootstrap(): Promise<void> {
    if (this.databaseUrl) await this.listen();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.listening = false;
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
  }

  /** Whether caches of cross-process topics may serve from memory (see the class comment). */
  get trusted(): boolean {
    return !this.databaseUrl || this.listening;
  }

  bump(topic: CacheTopic): void {
    this.versions.set(topic, (this.versions.get(topic) ?? 0) + 1);
  }

  version(topic: CacheTopic): number {
    return this.versions.get(topic) ?? 0;
  }

  /**
   * A change of `topic` made in the open transaction (or just made, outside one): every process's
   * caches of it are invalidated at commit. This process's bump also runs after commit, so a reader
   * here cannot cache the old value under the new version.
   */
  async changed(topic: CacheTopic): Promise<void> {
    if (!this.tx) return this.bump(topic);
    if (this.tx.inTransaction) {
      const manager = this.tx.manager;
      this.written.set(manager, (this.written.get(manager) ?? new Set()).add(topic));
    }
    if (this.databaseUrl) await this.tx.manager.query('SELECT pg_notify($1, $2)', [CACHE_CHANNEL, topic]);
    await this.tx.afterCommit(() => this.bump(topic));
  }

  /** Whether the open transaction changed `topic`: what it reads of it must not be cached (it may roll back). */
  writtenInTransaction(topic: CacheTopic): boolean {
    return !!this.tx?.inTransaction && !!this.written.get(this.tx.manager)?.has(topic);
  }

  private get databaseUrl(): string | null {
    return this.config?.db.url ?? null;
  }

  private bumpAll(): void {
    for (const topic of TOPICS) this.bump(topic);
  }

  private async listen(): Promise<void> {
    if (this.stopped || !this.databaseUrl) return;
    const client = new Client({ connectionString: this.databaseUrl, application_name: 'sis-cache-listener' });
    const lost = (error?: Error) => {
      if (this.listener !== client) return;
      this.listener = null;
      this.listening = false;
      // Notifications may have been missed: nothing cached before now is current.
      this.bumpAll();
      client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger.warn(
        `LISTEN connection lost (${error?.message ?? 'closed'}): caches read per event until it is back`,
      );
      this.retry = setTimeout(() => void this.listen(), RECONNECT_MS);
      this.retry.unref();
    };
    client.on('notification', (message) => {
      if (message.channel === CACHE_CHANNEL && TOPICS.includes(message.payload as CacheTopic))
        this.bump(message.payload as CacheTopic);
    });
    client.on('error', lost);
    client.on('end', () => lost());
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CACHE_CHANNEL}`);
      if (this.listener !== client) return;
      // Changes made while it was down were not heard: start from fresh versions.
      this.bumpAll();
      this.listening = true;
    } catch (error) {
      lost(error as Error);
    }
  }
}

/**
 * A small keyed cache of some topics' data, trusted across processes through `CacheInvalidation`:
 * served from memory only while the invalidation is trusted and none of its topics' versions has
 * moved; a value read by a transaction that changed one of them, or while a version moved, is not
 * kept, and neither is `null` (absent is always read again).
 */
export class TopicCache<V> {
  private readonly entries = new Map<string, V>();
  private readonly topics: readonly CacheTopic[];
  private filledUnder = 0;

  constructor(
    private readonly invalidation: CacheInvalidation,
    topics: CacheTopic | readonly CacheTopic[],
    private readonly max = 10_000,
  ) {
    this.topics = typeof topics === 'string' ? [topics] : topics;
  }

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const version = this.current();
    const usable = this.invalidation.trusted && !this.writtenInTransaction();
    if (usable && this.entries.has(key)) return this.entries.get(key) as V;
    const value = await load();
    if (usable) this.keep(key, value, version);
    return value;
  }

  /**
   * Records a value the caller knows without reading it (a row its own transaction has just
   * created, so nothing else can have written it), kept under the same rules as a loaded one: not
   * while this transaction wrote one of the topics, and dropped when a topic moves.
   */
  prime(key: string, value: V): void {
    const version = this.current();
    if (this.invalidation.trusted && !this.writtenInTransaction()) this.keep(key, value, version);
  }

  /** The topics' version, the entries cleared first when it moved since they were filled. */
  private current(): number {
    const version = this.version();
    if (version !== this.filledUnder) {
      this.entries.clear();
      this.filledUnder = version;
    }
    return version;
  }

  private keep(key: string, value: V, version: number): void {
    if (value !== null && this.invalidation.trusted && this.version() === version) {
      if (this.entries.size >= this.max) this.entries.clear();
      this.entries.set(key, value);
    }
  }

  /**
   * The topics' versions summed: versions only ever grow by one, so the sum moves exactly when one of
   * them moves (webhook acks read this per request: no string built for it, issue 16).
   */
  private version(): number {
    let sum = 0;
    for (const topic of this.topics) sum += this.invalidation.version(topic);
    return sum;
  }

  private writtenInTransaction(): boolean {
    for (const topic of this.topics) if (this.invalidation.writtenInTransaction(topic)) return true;
    return false;
  }
}
