import { Injectable } from '@nestjs/common';
import { isUniqueViolation } from 'src/core/database/pg-errors';
import { TransactionHost } from 'src/core/database/transaction-host';
import type { PreparedEvent } from 'src/core/events/event-bus';
import { isUuid } from 'src/core/http/uuid';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { type DeliveryStatus, type MessageDirection, MessageEntity, type MessageType } from './message.entity';

/** What an AI agent reads of a message. */
export interface MessageText {
  readonly id: string;
  readonly direction: MessageDirection;
  readonly type: MessageType;
  readonly text: string | null;
}

/** A claimed delivery and where it goes: its conversation's channel and recipient (null: conversation gone). */
export interface ClaimedDelivery {
  readonly message: MessageEntity;
  readonly to: { readonly channelId: string; readonly recipientId: string } | null;
}

/** A message the platform accepted: when, and the platform's id for it (null: none given). */
export interface SentMark {
  readonly message: Pick<MessageEntity, 'id' | 'conversationId' | 'seq'>;
  readonly sentAt: Date;
  readonly externalId: string | null;
}

/** What a SENT mark found: whether the message was still there, and its conversation's next held-back reply. */
export interface SentMarkResult {
  readonly updated: boolean;
  readonly nextPending: string | null;
}

/** A customer message as the pipeline stores it. */
export type InboundMessageValues = Pick<
  MessageEntity,
  'conversationId' | 'channelId' | 'type' | 'text' | 'attachments' | 'postbackPayload' | 'externalId' | 'metadata'
>;

/** A stored customer message and its conversation after the touch. */
export interface StoredInbound {
  readonly message: MessageEntity;
  readonly conversationUpdatedAt: Date;
  /** With `conversationRow`: the conversation's whole row after the update, as JSON (snake_case keys). */
  readonly conversationRow?: Record<string, unknown>;
}

/** How long a delivery attempt owns a message before another job may take it (a crashed sender). */
const DELIVERY_LEASE_SECONDS = 120;

@Injectable()
export class MessagesRepository extends WorkspaceScopedRepository<MessageEntity> {
  constructor(tx: TransactionHost) {
    super(tx, MessageEntity, 'm', 'Message');
  }

  /**
   * The pipeline's store step (the conversation's row locked by the caller, or inserted by its
   * transaction), in ONE statement: inserts the customer's message unless one with the same
   * (channel, external id) exists, and moves the conversation's last-message fields to it. Null for
   * a redelivery (nothing changes). Returns the stored message and the conversation's new
   * `updated_at` — and, with `conversationRow`, the conversation's whole row as updated (a new
   * conversation: what its opened hooks wrote too).
   */
  async insertInboundAndTouch(
    values: InboundMessageValues,
    preview: string,
    options: { readonly conversationRow?: boolean } = {},
  ): Promise<StoredInbound | null> {
    return this.storeInbound(values, preview, { conversationRow: options.conversationRow ?? false });
  }

  /**
   * The store step for a conversation known by id but not locked (the pipeline read it before its
   * group's events ran): in the same ONE statement, the conversation's row is locked and the message
   * stored only if the conversation is still not RESOLVED — 'not-open' otherwise (nothing changes).
   * Null for a redelivery. The conversation is NOT stamped here (the caller defers its stamp,
   * ConversationStamps): its whole row comes back as locked (whatever changed it since it was read),
   * with the statement's `now()` as `conversationUpdatedAt`.
   */
  insertInboundIfOpen(values: InboundMessageValues): Promise<StoredInbound | 'not-open' | null> {
    return this.storeInOpen(values);
  }

  /** The store step with the guard: lock, check, insert — no stamp (see `insertInboundIfOpen`). */
  private async storeInOpen(values: InboundMessageValues): Promise<StoredInbound | 'not-open' | null> {
    const rows = await this.queryRows<
      Record<string, unknown> & {
        open: boolean;
        conversation_updated_at: Date;
        conversation_row: Record<string, unknown>;
      }
    >(
      `WITH o AS (
         SELECT cv.id, to_jsonb(cv) AS row FROM conversations cv
          WHERE cv.workspace_id = $1 AND cv.id = $2::uuid AND cv.status <> 'RESOLVED'
          FOR UPDATE
       ),
       m AS (
         INSERT INTO messages (workspace_id, conversation_id, channel_id, direction, sender_type, type, text,
                               attachments, postback_payload, external_id, delivery_status, metadata)
         SELECT ${INBOUND_ROW('o.id')} FROM o
         ON CONFLICT DO NOTHING
         RETURNING *
       )
       SELECT m.*, now() AS conversation_updated_at, (SELECT o.row FROM o) AS conversation_row,
              EXISTS (SELECT 1 FROM o) AS open
         FROM (SELECT 1) AS one LEFT JOIN m ON true`,
      inboundParams(values),
    );
    const found = rows[0];
    if (!found?.open) return 'not-open';
    if (found.id === null || found.id === undefined) return null;
    const { conversation_row: conversationRow, open: _open, conversation_updated_at: at, ...message } = found;
    return { message: this.fromRaw(message), conversationUpdatedAt: new Date(at), conversationRow };
  }

  private async storeInbound(
    values: InboundMessageValues,
    preview: string,
    options: { readonly conversationRow: boolean },
  ): Promise<StoredInbound | null> {
    const rows = await this.queryRows<
      Record<string, unknown> & {
        conversation_updated_at: Date | null;
        conversation_row?: Record<string, unknown> | null;
      }
    >(
      `WITH m AS (
         INSERT INTO messages (workspace_id, conversation_id, channel_id, direction, sender_type, type, text,
                               attachments, postback_payload, external_id, delivery_status, metadata)
         VALUES (${INBOUND_ROW('$2::uuid')})
         ON CONFLICT DO NOTHING
         RETURNING *
       ),
       c AS (
         UPDATE conversations cv
            SET last_message_at = m.created_at, last_message_preview = $10, last_inbound_at = m.created_at,
                updated_at = now()
           FROM m
          WHERE cv.workspace_id = $1 AND cv.id = m.conversation_id
         RETURNING cv.updated_at${options.conversationRow ? ', to_jsonb(cv) AS row' : ''}
       )
       SELECT m.*, (SELECT c.updated_at FROM c) AS conversation_updated_at${
         options.conversationRow ? ', (SELECT c.row FROM c) AS conversation_row' : ''
       } FROM m`,
      [...inboundParams(values), preview],
    );
    const found = rows[0];
    if (!found) return null;
    // The caller holds the conversation's row: an insert without it would be a bug, never a redelivery.
    if (!found.conversation_updated_at)
      throw new Error(`Conversation ${values.conversationId} not found for its message`);
    const { conversation_row: conversationRow, ...message } = found;
    return {
      message: this.fromRaw(message),
      conversationUpdatedAt: new Date(found.conversation_updated_at),
      ...(conversationRow ? { conversationRow } : {}),
    };
  }

  /**
   * Replies (OUTBOUND, PENDING) and their conversations' stamps in ONE statement, one reply per
   * conversation: each conversation's last-message fields move to its reply, its first reply sets
   * `first_response_at` (kept after), and a customer message's stamp deferred in the same transaction
   * (`inboundAt`) sets `last_inbound_at` — one new row version for both. The conversations must exist (the caller holds or just read
   * them). Answers the stored replies in the order given.
   */
  async insertOutboundAndStamp(
    replies: readonly (Pick<
      MessageEntity,
      'conversationId' | 'channelId' | 'senderType' | 'senderId' | 'type' | 'text' | 'attachments' | 'buttons'
    > & {
      readonly preview: string;
      /** A customer message's deferred stamp on the same conversation (ConversationStamps.take): written here too. */
      readonly inboundAt?: Date | null;
    })[],
  ): Promise<MessageEntity[]> {
    if (replies.length === 0) return [];
    if (new Set(replies.map((r) => r.conversationId)).size !== replies.length) {
      throw new Error('One reply per conversation in one statement');
    }
    const rows = await this.queryRows<Record<string, unknown> & { stamped: boolean | null }>(
      `WITH v AS (
         SELECT * FROM jsonb_to_recordset($2::jsonb) AS v(n int, conversation_id uuid, channel_id uuid, sender_type text,
                sender_id uuid, type text, text text, attachments jsonb, buttons jsonb, preview text, inbound_at timestamptz)
       ),
       m AS (
         INSERT INTO messages (workspace_id, conversation_id, channel_id, direction, sender_type, sender_id, type,
                               text, attachments, buttons, delivery_status, metadata)
         SELECT $1, v.conversation_id, v.channel_id, 'OUTBOUND', v.sender_type, v.sender_id, v.type,
                v.text, v.attachments, v.buttons, 'PENDING', '{}'::jsonb
           FROM v ORDER BY v.n
         RETURNING *
       ),
       c AS (
         UPDATE conversations cv
            SET last_message_at = m.created_at, last_message_preview = v.preview,
                last_inbound_at = coalesce(v.inbound_at, cv.last_inbound_at),
                first_response_at = coalesce(cv.first_response_at, m.created_at), updated_at = now()
           FROM m JOIN v ON v.conversation_id = m.conversation_id
          WHERE cv.workspace_id = $1 AND cv.id = m.conversation_id
         RETURNING cv.id
       )
       SELECT m.*, EXISTS (SELECT 1 FROM c WHERE c.id = m.conversation_id) AS stamped FROM m`,
      [
        JSON.stringify(
          replies.map((r, n) => ({
            n,
            conversation_id: r.conversationId,
            channel_id: r.channelId,
            sender_type: r.senderType,
            sender_id: r.senderId,
            type: r.type,
            text: r.text,
            attachments: r.attachments ?? [],
            buttons: r.buttons ?? null,
            preview: r.preview,
            inbound_at: r.inboundAt?.toISOString() ?? null,
          })),
        ),
      ],
    );
    const byConversation = new Map(rows.map((row) => [row.conversation_id as string, row]));
    return replies.map((r) => {
      const row = byConversation.get(r.conversationId);
      if (!row?.stamped) throw new Error(`Conversation ${r.conversationId} not found for its reply`);
      return this.fromRaw(row);
    });
  }

  async existsByExternalId(channelId: string, externalId: string): Promise<boolean> {
    const rows: unknown[] = await this.query(
      `SELECT 1 FROM messages WHERE workspace_id = $1 AND channel_id = $2 AND external_id = $3 LIMIT 1`,
      [channelId, externalId],
    );
    return rows.length > 0;
  }

  /** The latest `limit` messages before `beforeSeq` (newest first), plus whether older ones exist. */
  async findLatest(
    conversationId: string,
    limit: number,
    beforeSeq: string | null,
  ): Promise<{ rows: MessageEntity[]; hasMore: boolean }> {
    const qb = this.scopedQuery().andWhere('m.conversation_id = :conversationId', { conversationId });
    if (beforeSeq !== null) qb.andWhere('m.seq < :beforeSeq', { beforeSeq });
    const rows = await qb
      .orderBy('m.seq', 'DESC')
      .limit(limit + 1)
      .getMany();
    return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
  }

  /**
   * The direction, type and text of the latest `limit` messages (newest first), nothing else: what an
   * AI agent reads of a conversation. One statement, no entity hydration (it runs for every inbound
   * message, inside the pipeline's transaction).
   */
  findLatestTexts(conversationId: string, limit: number): Promise<MessageText[]> {
    if (!isUuid(conversationId)) return Promise.resolve([]);
    return this.queryRows<MessageText>(
      `SELECT id, direction, type, text FROM messages
        WHERE workspace_id = $1 AND conversation_id = $2
        ORDER BY seq DESC LIMIT $3`,
      [conversationId, limit],
    );
  }

  /**
   * Takes a PENDING outbound message for one delivery attempt (counted) under a lease, so a duplicate
   * job cannot send it twice. Null when it is not due, already delivered, or failed — or while an
   * earlier OUTBOUND message of the conversation is still PENDING (per-conversation order: that
   * message's delivery queues this one when it ends, see `nextPendingOutbound`).
   */
  async claimForDelivery(id: string): Promise<ClaimedDelivery | null> {
    return (await this.claimManyForDelivery([id])).get(id) ?? null;
  }

  /**
   * `claimForDelivery` for several messages in ONE statement (a pipeline group's replies, issue 16
   * item 3): the claimed ones by id; each is checked as above, against the statement's snapshot (of
   * two messages of one conversation, the later one is held back by the earlier one).
   */
  async claimManyForDelivery(ids: readonly string[]): Promise<Map<string, ClaimedDelivery>> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) return new Map();
    const rows = await this.queryRows<
      Record<string, unknown> & { to_channel_id: string | null; to_recipient: string | null }
    >(
      `WITH claimed AS (
         UPDATE messages
            SET delivery_attempts = delivery_attempts + 1,
                next_attempt_at = now() + make_interval(secs => ${DELIVERY_LEASE_SECONDS}),
                updated_at = now()
          WHERE messages.workspace_id = $1 AND messages.id = ANY($2::uuid[]) AND direction = 'OUTBOUND'
            AND delivery_status = 'PENDING'
            AND (next_attempt_at IS NULL OR next_attempt_at <= now() + interval '1 second')
            -- per-conversation order: every earlier outbound message is SENT or FAILED first
            AND NOT EXISTS (
              SELECT 1 FROM messages e
               WHERE e.workspace_id = $1 AND e.conversation_id = messages.conversation_id
                 AND e.direction = 'OUTBOUND' AND e.delivery_status = 'PENDING' AND e.seq < messages.seq)
          RETURNING *)
       SELECT claimed.*, c.channel_id AS to_channel_id, c.contact_external_id AS to_recipient
         FROM claimed LEFT JOIN conversations c ON c.workspace_id = $1 AND c.id = claimed.conversation_id`,
      [valid],
    );
    const claimed = new Map<string, ClaimedDelivery>();
    for (const row of rows) {
      const to =
        row.to_channel_id && row.to_recipient ? { channelId: row.to_channel_id, recipientId: row.to_recipient } : null;
      const message = this.fromRaw(row);
      claimed.set(message.id, { message, to });
    }
    return claimed;
  }

  /**
   * The conversation's next outbound message still waiting after `seq` (the one an earlier pending
   * message held back), or null.
   */
  async nextPendingOutbound(conversationId: string, seq: string): Promise<string | null> {
    const rows = await this.queryRows<{ id: string }>(nextPendingOutboundSql('$2', '$3'), [conversationId, seq]);
    return rows[0]?.id ?? null;
  }

  /**
   * Delivered messages (one, or a group job's sends that ended together): each SENT at its `sentAt`
   * with the platform's id when it gave one, and their events' outbox rows, in ONE statement (no
   * transaction around it), which also reads each one's conversation's next outbound message still
   * waiting after it (as `nextPendingOutbound`; the messages are of different conversations). By id:
   * `updated` false when the message is gone. When the platform reused an id we already hold, the
   * statement is run again keeping only the ids nobody else holds, then without any.
   */
  async markSent(sends: readonly SentMark[], events: PreparedEvent): Promise<Map<string, SentMarkResult>> {
    const run = async (platformIds: 'all' | 'free' | 'none') => {
      const externalId =
        platformIds === 'all'
          ? 'coalesce(v.external_id, m.external_id)'
          : platformIds === 'free'
            ? `CASE WHEN v.external_id IS NOT NULL AND NOT EXISTS (
                 SELECT 1 FROM messages held
                  WHERE held.workspace_id = $1 AND held.channel_id = m.channel_id AND held.external_id = v.external_id)
               THEN v.external_id ELSE m.external_id END`
            : 'm.external_id';
      return this.queryRows<{ id: string; updated: boolean; next_pending: string | null }>(
        `WITH v AS (
           SELECT * FROM jsonb_to_recordset($2::jsonb) AS v(id uuid, conversation_id uuid, seq bigint, sent_at timestamptz, external_id text)
         ),
         sent AS (
           UPDATE messages m
              SET delivery_status = 'SENT', delivery_error = NULL, next_attempt_at = NULL, sent_at = v.sent_at,
                  external_id = ${externalId}, updated_at = now()
             FROM v
            WHERE m.workspace_id = $1 AND m.id = v.id
           RETURNING m.id),
         ev AS (${events.sql} RETURNING 1)
         SELECT v.id, EXISTS (SELECT 1 FROM sent WHERE sent.id = v.id) AS updated,
                (${nextPendingOutboundSql('v.conversation_id', 'v.seq')}) AS next_pending
           FROM v`,
        [
          JSON.stringify(
            sends.map((s) => ({
              id: s.message.id,
              conversation_id: s.message.conversationId,
              seq: s.message.seq,
              sent_at: s.sentAt.toISOString(),
              external_id: s.externalId,
            })),
          ),
          ...events.params,
        ],
      );
    };
    let rows;
    try {
      rows = await run('all');
    } catch (error) {
      if (!isUniqueViolation(error) || !sends.some((s) => s.externalId)) throw error;
      try {
        rows = await run('free');
      } catch (again) {
        if (!isUniqueViolation(again)) throw again;
        rows = await run('none');
      }
    }
    return new Map(rows.map((r) => [r.id, { updated: r.updated, nextPending: r.next_pending }]));
  }

  /** A failed attempt: PENDING until `nextAttemptAt`, or FAILED when none is left. */
  markAttemptFailed(id: string, error: string, nextAttemptAt: Date | null): Promise<MessageEntity> {
    return this.updateById(id, {
      deliveryStatus: nextAttemptAt ? 'PENDING' : 'FAILED',
      deliveryError: error.slice(0, 2000),
      nextAttemptAt,
    });
  }

  /**
   * A platform's delivery receipt for one of our outbound messages (WhatsApp statuses): FAILED with
   * the error, otherwise SENT; the latest receipt is kept in metadata. Null when no message matches.
   */
  async applyDeliveryUpdate(
    channelId: string,
    externalId: string,
    update: string,
    error: string | null,
  ): Promise<string | null> {
    const status: DeliveryStatus = update === 'FAILED' ? 'FAILED' : 'SENT';
    const rows: { id: string }[] = await this.query(
      `WITH updated AS (
         UPDATE messages
            SET delivery_status = $4,
                delivery_error = CASE WHEN $4 = 'FAILED' THEN $5 ELSE delivery_error END,
                sent_at = coalesce(sent_at, now()),
                next_attempt_at = NULL,
                metadata = metadata || jsonb_build_object('receipt', $6::text, 'receiptAt', now()),
                updated_at = now()
          WHERE workspace_id = $1 AND channel_id = $2 AND external_id = $3 AND direction = 'OUTBOUND'
          RETURNING id)
       SELECT id FROM updated`,
      [channelId, externalId, status, error, update],
    );
    return rows[0]?.id ?? null;
  }
}

/**
 * The conversation's first PENDING outbound message after `seq` (per-conversation order), given the
 * SQL expressions (parameter references such as `$2`, or columns) of the conversation and the seq; `$1`
 * is the workspace. Read alone (`nextPendingOutbound`) or inside the SENT marks' statement (`markSent`).
 */
function nextPendingOutboundSql(conversation: string, seq: string): string {
  return `SELECT n.id FROM messages n
           WHERE n.workspace_id = $1 AND n.conversation_id = ${conversation}::uuid
             AND n.direction = 'OUTBOUND' AND n.delivery_status = 'PENDING' AND n.seq > ${seq}::bigint
           ORDER BY n.seq LIMIT 1`;
}

/**
 * The VALUES of an inbound message row for the store statements, `conversation` being its SQL (a
 * parameter or the locked row's id); typed parameters, as the row may be a SELECT's (no column types
 * inferred there). Parameters `$2`–`$9` are `inboundParams`.
 */
const INBOUND_ROW = (conversation: string): string =>
  `$1::uuid, ${conversation}, $3::uuid, 'INBOUND', 'CONTACT', $4::text, $5::text, $6::jsonb, $7::text, $8::text,
   'RECEIVED', $9::jsonb`;

function inboundParams(values: InboundMessageValues): unknown[] {
  return [
    values.conversationId,
    values.channelId,
    values.type,
    values.text,
    JSON.stringify(values.attachments ?? []),
    values.postbackPayload,
    values.externalId,
    JSON.stringify(values.metadata ?? {}),
  ];
}
