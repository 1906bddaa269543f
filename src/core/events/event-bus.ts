import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { TransactionHost } from 'src/core/database/transaction-host';
import type { EventMap, EventName } from './event-map';

export type { EventMap, EventName, PublicResource, EventContactRef } from './event-map';

/** The key of a transaction's pending outbox rows (TransactionHost.beforeCommit). */
const OUTBOX_ROWS = {};
export { EVENT_NAMES, EVENT_DESCRIPTIONS } from './event-map';

/** One published event of a known name. `id` is its `event_outbox` row (and the webhook payload's `id`). */
export interface TypedDomainEvent<K extends EventName> {
  readonly id: string;
  readonly name: K;
  readonly workspaceId: string;
  readonly data: EventMap[K];
  readonly occurredAt: string;
}

/** Any event, payload read loosely (a `'*'` listener; narrow by `name` for the typed payload). */
export interface AnyDomainEvent {
  readonly id: string;
  readonly name: EventName;
  readonly workspaceId: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly data: Record<string, any>;
  readonly occurredAt: string;
}

/** `DomainEvent<'ticket.created'>` is typed; plain `DomainEvent` is any event (source-compatible with the untyped bus). */
export type DomainEvent<K extends EventName = never> = [K] extends [never] ? AnyDomainEvent : TypedDomainEvent<K>;

export type EventListener<K extends EventName = never> = (event: DomainEvent<K>) => Promise<void> | void;

/** Events' outbox rows written by the caller's own statement (`EventBus.prepareAll`). */
export interface PreparedEvent {
  /** The `INSERT INTO event_outbox …` to run as a CTE of the caller's statement. */
  readonly sql: string;
  /** Its parameters, numbered from the `first` given to `prepareAll`. */
  readonly params: readonly unknown[];
  /** Call once the statement succeeded: the event is dispatched after commit, as `publish`'s. */
  readonly written: () => Promise<void>;
}

/** Told after commit that a workspace has new outbox rows (the developer module's relay). */
export type OutboxWrittenHook = (workspaceId: string) => void | Promise<void>;

/**
 * Domain events (DESIGN §10), durable and typed. `publish` writes the event to `event_outbox` with
 * the caller's open transaction (TransactionHost), so the event exists exactly when the change it
 * reports does; in-process listeners run after that transaction commits — always, whoever
 * publishes (outside a transaction: the row is written and listeners run at once). A rolled-back
 * change publishes nothing. Reactions that must happen inside the transaction use explicit hooks
 * (pipeline stages, merge hooks, conversation-opened hooks), never listeners. Listener errors are
 * logged, never thrown back at the publisher. The developer module relays outbox rows to webhooks.
 */
@Injectable()
export class EventBus {
  private readonly logger = new Logger('EventBus');
  private readonly listeners = new Map<EventName | '*', ((event: AnyDomainEvent) => Promise<void> | void)[]>();
  private readonly written: OutboxWrittenHook[] = [];

  constructor(private readonly tx: TransactionHost) {}

  subscribe(name: '*', listener: EventListener): void;
  subscribe<K extends EventName>(name: K, listener: EventListener<K>): void;
  subscribe(name: EventName | '*', listener: (event: never) => Promise<void> | void): void {
    const run = listener as (event: AnyDomainEvent) => Promise<void> | void;
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), run]);
  }

  /** Registers a hook told (after commit) that a workspace has new outbox rows. */
  onOutboxWritten(hook: OutboxWrittenHook): void {
    this.written.push(hook);
  }

  async publish<K extends EventName>(name: K, workspaceId: string, data: EventMap[K]): Promise<void> {
    await this.publishAll(name, workspaceId, [data]);
  }

  /**
   * Several events of one name (imports); each gets its own id and row. Inside a transaction the rows
   * are written once the transaction's work is done, in one statement with every other event it
   * published (TransactionHost.beforeCommit: a pipeline group of eight messages writes its outbox rows
   * with one statement, not eight); outside one, at once. Nothing reads the outbox inside the
   * publishing transaction (the relay runs after commit). Each event's data is serialised now, as it
   * is at this moment.
   */
  async publishAll<K extends EventName>(name: K, workspaceId: string, list: readonly EventMap[K][]): Promise<void> {
    if (list.length === 0) return;
    const occurredAt = new Date().toISOString();
    const events = list.map((data): TypedDomainEvent<K> => ({ id: randomUUID(), name, workspaceId, data, occurredAt }));
    const rows = events.map((e) => ({ id: e.id, type: name, data: e.data, created_at: occurredAt }));
    const pending = this.tx.beforeCommit(
      OUTBOX_ROWS,
      () => new Map<string, string[]>(),
      (byWorkspace) => this.writeOutbox(byWorkspace),
    );
    if (pending) {
      const json = pending.get(workspaceId) ?? [];
      for (const row of rows) json.push(JSON.stringify(row));
      pending.set(workspaceId, json);
    } else {
      await this.writeOutbox(new Map([[workspaceId, rows.map((row) => JSON.stringify(row))]]));
    }
    await this.tx.afterCommit(() => this.dispatch(workspaceId, events as readonly AnyDomainEvent[]));
  }

  /** Outbox rows (serialised `{id, type, data, created_at}`), one statement per workspace. */
  private async writeOutbox(byWorkspace: ReadonlyMap<string, readonly string[]>): Promise<void> {
    for (const [workspaceId, json] of byWorkspace) {
      await this.tx.manager.query(
        `INSERT INTO event_outbox (id, workspace_id, type, data, created_at)
         SELECT e.id, $1::uuid, e.type, e.data, e.created_at
           FROM jsonb_to_recordset($2::jsonb) AS e(id uuid, type text, data jsonb, created_at timestamptz)`,
        [workspaceId, `[${json.join(',')}]`],
      );
    }
  }

  /**
   * A change and its events in ONE statement (hot paths: deliveries' SENT marks): the events' outbox
   * rows as an `INSERT INTO event_outbox …` for the caller's statement to run as a CTE, with one
   * parameter, `$first` (their rows as JSON; `$1` is the caller's workspace id, as in every scoped
   * statement) — the same statement text for one event or many. Once that statement has succeeded
   * the caller calls `written()`, which dispatches the events after commit exactly as `publishAll`
   * does (at once outside a transaction).
   */
  prepareAll<K extends EventName>(
    name: K,
    workspaceId: string,
    list: readonly EventMap[K][],
    first: number,
  ): PreparedEvent {
    const occurredAt = new Date().toISOString();
    const events = list.map((data): TypedDomainEvent<K> => ({ id: randomUUID(), name, workspaceId, data, occurredAt }));
    return {
      sql: `INSERT INTO event_outbox (id, workspace_id, type, data, created_at)
            SELECT e.id, $1::uuid, e.type, e.data, e.created_at
              FROM jsonb_to_recordset($${first}::jsonb) AS e(id uuid, type text, data jsonb, created_at timestamptz)`,
      params: [JSON.stringify(events.map((e) => ({ id: e.id, type: name, data: e.data, created_at: occurredAt })))],
      written: () => this.tx.afterCommit(() => this.dispatch(workspaceId, events as readonly AnyDomainEvent[])),
    };
  }

  private async dispatch(workspaceId: string, events: readonly AnyDomainEvent[]): Promise<void> {
    for (const hook of this.written) {
      try {
        await hook(workspaceId);
      } catch (error) {
        this.logger.warn({ err: error }, 'Outbox hook failed; the relay sweep will pick the events up');
      }
    }
    for (const event of events) {
      for (const listener of [...(this.listeners.get(event.name) ?? []), ...(this.listeners.get('*') ?? [])]) {
        try {
          await listener(event);
        } catch (error) {
          this.logger.error({ err: error, event: event.name }, 'Event listener failed');
        }
      }
    }
  }
}
