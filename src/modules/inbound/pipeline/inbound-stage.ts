import type { AdReferral, ChannelType } from 'src/modules/channels';
import type { ConversationResponse, MessageResponse } from 'src/modules/inbox';

/**
 * Where other modules plug into the inbound pipeline, in SPEC §1's order. The processor publishes
 * `conversation.created` / `message.received` between the stages below 100 and those from 100 on:
 * their outbox rows (developer webhooks) are written there, in the event's transaction, and
 * in-process listeners hear them once that transaction has committed, after every stage.
 *
 * - below 100: the conversation is being set up, before anyone hears of it (`Sla` 50 is kept as that
 *   slot's name; the SLA module itself applies due times on the inbox's "conversation opened" hook,
 *   which also covers `POST /conversations`);
 * - 100 automatic ticket → 200 automations → 300 developer webhooks;
 * - 400 flow → 410 AI agent → 420 suggested reply: the `reply` group, where the first stage that
 *   answers 'handled' ends the group (a matching flow means no AI reply, an AI reply no suggestion).
 */
export const InboundStageOrder = {
  Sla: 50,
  Ticket: 100,
  Automations: 200,
  Webhooks: 300,
  Flow: 400,
  AiAgent: 410,
  SuggestedReply: 420,
} as const;

/** Stages at or after this order run once the events are published (written to the outbox). */
export const PUBLISH_BEFORE_ORDER = 100;

/** What a stage sees: the stored message and its conversation and contact. */
export interface InboundStageContext {
  readonly workspaceId: string;
  readonly eventId: string;
  readonly channel: { readonly id: string; readonly type: ChannelType };
  readonly contact: { readonly id: string; readonly name: string | null; readonly created: boolean };
  readonly conversation: ConversationResponse;
  readonly conversationCreated: boolean;
  readonly message: MessageResponse;
  /** Messenger / Instagram / WhatsApp ad that brought the customer (AD_REFERRAL flows). */
  readonly referral: AdReferral | null;
}

export type InboundStageResult = 'continue' | 'handled';

/**
 * One step another module adds to the pipeline. It runs inside the event's transaction, after the
 * message is stored, for new messages only (never for a redelivery). On a busy process that
 * transaction is shared with other events of the workspace (group processing, InboundEventBatcher):
 * a stage keeps no per-transaction state of its own and defers side effects with `afterCommit`,
 * which runs once the group commits. Repositories join the
 * transaction automatically; work that is slow or talks to the network must be enqueued as a job
 * (`TransactionHost.afterCommit`), never done inline. On PostgreSQL the event's transaction commits
 * without waiting for the WAL flush (issue 16): such a job makes what it read durable before it
 * leaves the database — a synchronous write of its own first (a claim), or
 * `TransactionHost.ensureDurable()`. Throwing fails the event: it is retried as a whole (nothing of
 * it is kept) and ends FAILED after the last attempt.
 */
export interface InboundStage {
  /** Unique, e.g. `tickets.auto-create`. */
  readonly name: string;
  /** Position; one stage per number (see InboundStageOrder). */
  readonly order: number;
  /** Stages of the `reply` group are exclusive: after one answers 'handled', the rest of the group is skipped. */
  readonly group?: 'reply';
  run(context: InboundStageContext): Promise<InboundStageResult | void>;
}
