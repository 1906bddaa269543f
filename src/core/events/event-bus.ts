import { Injectable, Logger } from '@nestjs/common';

/** Event names shared by the internal bus and developer webhooks (DESIGN §10). */
export type EventName =
  | 'conversation.created'
  | 'conversation.updated'
  | 'conversation.resolved'
  | 'message.received'
  | 'message.sent'
  | 'message.failed'
  | 'ticket.created'
  | 'ticket.updated'
  | 'contact.created'
  | 'contact.updated'
  | 'sla.breached'
  | 'catalog.sync.completed'
  | 'catalog.sync.stopped'
  | 'csat.received'
  | 'webhook.test';

export interface DomainEvent<T = Record<string, unknown>> {
  readonly name: EventName;
  readonly workspaceId: string;
  readonly data: T;
  readonly occurredAt: string;
}

export type EventListener = (event: DomainEvent) => Promise<void> | void;

/**
 * In-process publish/subscribe for facts other modules react to (e.g. developer webhooks). Where
 * order matters (the inbound pipeline), the caller orders its stages explicitly instead of relying
 * on listeners. Listener errors are logged, never thrown back at the publisher.
 */
@Injectable()
export class EventBus {
  private readonly logger = new Logger('EventBus');
  private readonly listeners = new Map<EventName | '*', EventListener[]>();

  subscribe(name: EventName | '*', listener: EventListener): void {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
  }

  async publish<T extends Record<string, unknown>>(name: EventName, workspaceId: string, data: T): Promise<void> {
    const event: DomainEvent = { name, workspaceId, data, occurredAt: new Date().toISOString() };
    for (const listener of [...(this.listeners.get(name) ?? []), ...(this.listeners.get('*') ?? [])]) {
      try {
        await listener(event);
      } catch (error) {
        this.logger.error({ err: error, event: name }, 'Event listener failed');
      }
    }
  }
}
