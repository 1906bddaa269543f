/**
 * The domain events of DESIGN §10 and their payloads: one shape per event. The same names and
 * payloads travel on the in-process bus and, as the `data` of a delivery, to developer webhooks, so
 * every resource in a payload is the public API shape (the mapper the REST answer uses), never an
 * entity. Core knows no module, so resources are typed by what every public resource has (`id`);
 * the publisher passes its module's response object.
 */
export interface PublicResource {
  readonly id: string;
}

/** The contact a conversation or message belongs to, as the inbound pipeline resolved it. */
export interface EventContactRef {
  readonly id: string;
  readonly name: string | null;
  /** True when this event's message created the contact. */
  readonly created: boolean;
}

export interface EventMap {
  /** A conversation was opened (inbound message, `POST /conversations`). */
  'conversation.created': { readonly conversation: PublicResource; readonly contact: EventContactRef };
  /** A conversation changed (API update, assignment, routing, hold, resume, wrap-up). `change` names the action. */
  'conversation.updated': {
    readonly conversationId: string;
    readonly conversation: PublicResource;
    readonly change: string;
    readonly changes: readonly string[];
  };
  /** A conversation was resolved (wrap-up). */
  'conversation.resolved': { readonly conversationId: string; readonly conversation: PublicResource };
  /** A customer message was stored by the inbound pipeline. */
  'message.received': {
    readonly message: PublicResource;
    readonly conversation: PublicResource;
    readonly contact: EventContactRef;
  };
  /** An outbound message reached the platform. */
  'message.sent': { readonly message: PublicResource; readonly conversationId: string };
  /** An outbound message failed for good (every attempt used, or a permanent error). */
  'message.failed': { readonly message: PublicResource; readonly conversationId: string };
  /** A ticket was created (API, automatic ticket, automation). */
  'ticket.created': { readonly ticket: PublicResource };
  /** A ticket changed; `changes` lists the fields. */
  'ticket.updated': { readonly ticket: PublicResource; readonly changes: readonly string[] };
  /** A contact was created (API, inbound pipeline, CSV import). */
  'contact.created': { readonly contact: PublicResource };
  /** A contact changed (API, CSV import, merge: then `mergedContactIds` names the removed duplicates). */
  'contact.updated': { readonly contact: PublicResource; readonly mergedContactIds?: readonly string[] };
  /** An SLA target passed its due time unmet (timer). */
  'sla.breached': {
    readonly conversationId: string;
    readonly target: string;
    readonly policyId: string | null;
    readonly policyName: string | null;
    readonly dueAt: string;
    readonly breachedAt: string;
  };
  /** A website sync finished and changed the catalogue (`run` is the website run record). */
  'catalog.sync.completed': { readonly websiteId: string; readonly run: PublicResource };
  /** A website sync was stopped by the off-sale guard; nothing changed. */
  'catalog.sync.stopped': {
    readonly websiteId: string;
    readonly run: PublicResource;
    readonly wouldTakeOffSale: number;
    readonly onSale: number;
  };
  /** A customer rated a conversation (`POST /csat`): the CSAT record itself, as the API returns it. */
  'csat.received': {
    readonly id: string;
    readonly conversationId: string;
    readonly score: number;
    readonly comment: string | null;
    readonly createdAt: string;
  };
  /** Sent by `POST /developer/webhooks/:id/test` to that webhook only. */
  'webhook.test': { readonly webhookId: string; readonly message: string };
}

export type EventName = keyof EventMap;

/** Every event name, in the order of DESIGN §10, with what it means (`GET /developer/meta`). */
export const EVENT_DESCRIPTIONS: Readonly<Record<EventName, string>> = {
  'conversation.created': 'A conversation was opened (inbound message or API).',
  'conversation.updated': 'A conversation changed: fields, assignment, hold, resume, wrap-up.',
  'conversation.resolved': 'A conversation was resolved.',
  'message.received': 'A customer message arrived.',
  'message.sent': 'An outbound message reached the platform.',
  'message.failed': 'An outbound message failed after its last attempt.',
  'ticket.created': 'A ticket was created (API, automatic ticket or automation).',
  'ticket.updated': 'A ticket changed.',
  'contact.created': 'A contact was created (API, inbound message or import).',
  'contact.updated': 'A contact changed (API, import or merge).',
  'sla.breached': 'An SLA target passed its due time unmet.',
  'catalog.sync.completed': 'A website catalogue sync finished and was applied.',
  'catalog.sync.stopped': 'A website catalogue sync was stopped by the off-sale guard.',
  'csat.received': 'A customer rated a conversation.',
  'webhook.test': 'A test delivery requested with POST /developer/webhooks/:id/test.',
};

export const EVENT_NAMES: readonly EventName[] = Object.keys(EVENT_DESCRIPTIONS) as EventName[];
