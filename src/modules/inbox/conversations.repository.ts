import { Injectable } from '@nestjs/common';
import { Brackets } from 'typeorm';
import type { Priority } from 'src/core/domain/vocabulary';
import { foreignKeyViolation, likePattern } from 'src/core/database/pg-errors';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import {
  type CursorPaginationQuery,
  type KeysetOptions,
  type Page,
  findKeysetPage,
  sortedAfterFetch,
} from 'src/core/http/pagination';
import { isUuid } from 'src/core/http/uuid';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { ConversationEntity, type ConversationStatus } from './conversation.entity';

export interface ConversationFilters {
  readonly statuses?: readonly ConversationStatus[];
  readonly priorities?: readonly Priority[];
  readonly search?: string;
  /** A user id, or null for unassigned conversations. */
  readonly assigneeId?: string | null;
  readonly queueId?: string;
  readonly channelId?: string;
  readonly contactId?: string;
  readonly tag?: string;
  readonly from?: string;
  readonly to?: string;
}

/** DESIGN §3.4: a caller without `conversations.view_all` sees theirs and the unassigned ones of their queues. */
export interface ConversationVisibility {
  readonly userId: string;
  readonly queueIds: readonly string[];
}

/** Newest activity first: keyset on `(last_message_at, id)` (never null since the inbox migration). */
const newestActivityFirst: KeysetOptions<ConversationEntity> = {
  sortExpression: 'cv.last_message_at',
  idExpression: 'cv.id',
  sortValue: (row) => row.lastMessageAt.toISOString(),
  sortCast: 'timestamptz',
};

/** Which referenced record a foreign-key violation on `conversations` names. */
const FK_LABELS: Record<string, string> = {
  conversations_workspace_id_assignee_id_fkey: 'Assignee',
  conversations_workspace_id_queue_id_fkey: 'Queue',
  conversations_workspace_id_contact_id_fkey: 'Contact',
  conversations_workspace_id_channel_id_fkey: 'Channel',
};

/** Above this many matching rows a search term counts as frequent (see findPage). */
const SEARCH_PROBE = 2000;

/** A foreign-key violation becomes 404 naming the missing record (a member or queue of another workspace included). */
export function translateForeignKey(error: unknown): unknown {
  const constraint = foreignKeyViolation(error);
  if (constraint === null) return error;
  const label = FK_LABELS[constraint];
  return AppException.notFound(label ?? 'Referenced record');
}

@Injectable()
export class ConversationsRepository extends WorkspaceScopedRepository<ConversationEntity> {
  constructor(tx: TransactionHost) {
    super(tx, ConversationEntity, 'cv', 'Conversation');
  }

  /**
   * `GET /conversations`: newest activity first.
   *
   * Search (case-insensitive substring of the subject, the contact's name or email, or any message
   * text) uses the trigram GIN indexes (migration 1763916000000) in one of two plans, picked by how
   * many rows match (issue 16, measured at 100,000 conversations / 1,000,000 messages):
   * - a rare term: one bounded read of the indexes (rareSearchMatches) returns the matching
   *   conversation and contact ids, and the page is those conversations in list order (a sort of a
   *   few rows; the indexes are not read a second time);
   * - a frequent term: the newest conversations are walked in order and each is probed through its
   *   own messages (`OFFSET 0` keeps the planner from hashing every matching message first), which
   *   stops as soon as the page is full.
   * Either way the order, the keyset cursor and the rows are those of the plain filter.
   */
  async findPage(
    f: ConversationFilters,
    visibility: ConversationVisibility | null,
    query: CursorPaginationQuery,
  ): Promise<Page<ConversationEntity>> {
    const qb = this.scopedQuery();
    if (visibility) {
      qb.andWhere(
        new Brackets((w) => {
          w.where('cv.assignee_id = :visibleUserId', { visibleUserId: visibility.userId });
          if (visibility.queueIds.length) {
            w.orWhere('(cv.assignee_id IS NULL AND cv.queue_id = ANY(:visibleQueueIds::uuid[]))', {
              visibleQueueIds: visibility.queueIds,
            });
          }
        }),
      );
    }
    if (f.statuses?.length) qb.andWhere('cv.status IN (:...statuses)', { statuses: f.statuses });
    if (f.priorities?.length) qb.andWhere('cv.priority IN (:...priorities)', { priorities: f.priorities });
    if (f.assigneeId === null) qb.andWhere('cv.assignee_id IS NULL');
    else if (f.assigneeId !== undefined) qb.andWhere('cv.assignee_id = :assigneeId', { assigneeId: f.assigneeId });
    if (f.queueId) qb.andWhere('cv.queue_id = :queueId', { queueId: f.queueId });
    if (f.channelId) qb.andWhere('cv.channel_id = :channelId', { channelId: f.channelId });
    if (f.contactId) qb.andWhere('cv.contact_id = :contactId', { contactId: f.contactId });
    if (f.tag) qb.andWhere('cv.tags @> ARRAY[:tag]::text[]', { tag: f.tag });
    if (f.from) qb.andWhere('cv.created_at >= :from::timestamptz', { from: f.from });
    if (f.to) qb.andWhere('cv.created_at < :to::timestamptz', { to: f.to });
    if (f.search) {
      const search = likePattern(f.search);
      const ids = await this.rareSearchMatches(search);
      if (ids) {
        qb.andWhere('cv.id IN (SELECT unnest(:searchIds::uuid[]))', { searchIds: ids });
        return findKeysetPage(qb, query, sortedAfterFetch(newestActivityFirst));
      }
      qb.andWhere(
        new Brackets((w) => {
          w.where('cv.subject ILIKE :search')
            .orWhere(
              `EXISTS (SELECT 1 FROM contacts ct WHERE ct.workspace_id = cv.workspace_id AND ct.id = cv.contact_id
                 AND (ct.name ILIKE :search OR ct.email ILIKE :search) OFFSET 0)`,
            )
            .orWhere(
              `EXISTS (SELECT 1 FROM messages m WHERE m.workspace_id = cv.workspace_id AND m.conversation_id = cv.id
                 AND m.text ILIKE :search OFFSET 0)`,
            );
        }),
        { search },
      );
    }
    return findKeysetPage(qb, query, newestActivityFirst);
  }

  /**
   * The conversations a rare search term matches, read once from the trigram indexes: those whose
   * subject or one of whose messages matches, and those of the matching contacts. Each read stops
   * after SEARCH_PROBE rows; null when one of them holds SEARCH_PROBE or more in all (a frequent
   * term: findPage walks the conversations in order instead).
   */
  private async rareSearchMatches(pattern: string): Promise<string[] | null> {
    const rows = await this.queryRows<{ probed: number | string; ids: string[] | null }>(
      `WITH m AS MATERIALIZED (
              SELECT pm.conversation_id AS id FROM messages pm WHERE pm.workspace_id = $1 AND pm.text ILIKE $2 LIMIT ${SEARCH_PROBE}),
            s AS MATERIALIZED (
              SELECT ps.id FROM conversations ps WHERE ps.workspace_id = $1 AND ps.subject ILIKE $2 LIMIT ${SEARCH_PROBE}),
            ct AS MATERIALIZED (
              SELECT pc.id FROM contacts pc WHERE pc.workspace_id = $1 AND (pc.name ILIKE $2 OR pc.email ILIKE $2) LIMIT ${SEARCH_PROBE}),
            n AS (SELECT (SELECT count(*) FROM m) + (SELECT count(*) FROM s) + (SELECT count(*) FROM ct) AS probed)
       SELECT n.probed,
              CASE WHEN n.probed < ${SEARCH_PROBE} THEN ARRAY(
                SELECT id FROM m UNION SELECT id FROM s
                UNION (SELECT x.id FROM ct CROSS JOIN LATERAL (
                         SELECT cv.id FROM conversations cv WHERE cv.workspace_id = $1 AND cv.contact_id = ct.id OFFSET 0) x
                       LIMIT ${SEARCH_PROBE})) END AS ids
         FROM n`,
      [pattern],
    );
    const row = rows[0];
    if (!row?.ids || Number(row.probed) >= SEARCH_PROBE || row.ids.length >= SEARCH_PROBE) return null;
    return row.ids;
  }

  /** Contact names for a page of conversations, in one query (contacts the caller cannot see are absent). */
  async contactNames(contactIds: readonly string[]): Promise<Map<string, string | null>> {
    if (contactIds.length === 0) return new Map();
    const rows: { id: string; name: string | null }[] = await this.query(
      `SELECT id, name FROM contacts WHERE workspace_id = $1 AND id = ANY($2::uuid[])`,
      [[...new Set(contactIds)]],
    );
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  /** Inserts a conversation; a reference outside the workspace is 404 naming it. */
  async create(values: Omit<Partial<ConversationEntity>, 'workspaceId'>): Promise<ConversationEntity> {
    try {
      return await this.insert(values);
    } catch (error) {
      throw translateForeignKey(error);
    }
  }

  /** Updates fields (stamps updated_at); a reference outside the workspace is 404 naming it. */
  async update(
    id: string,
    patch: Omit<Partial<ConversationEntity>, 'id' | 'workspaceId'>,
  ): Promise<ConversationEntity> {
    try {
      return await this.updateById(id, { ...patch, updatedAt: new Date() });
    } catch (error) {
      throw translateForeignKey(error);
    }
  }

  /**
   * A status transition in one statement: applies `patch` only while the status is one of `from`
   * (so concurrent transitions cannot both win). Null when the conversation is in another status.
   */
  async transition(
    id: string,
    from: readonly ConversationStatus[],
    patch: Omit<Partial<ConversationEntity>, 'id' | 'workspaceId'>,
  ): Promise<ConversationEntity | null> {
    if (!isUuid(id)) throw AppException.notFound('Conversation');
    const result = await this.repo
      .createQueryBuilder()
      .update()
      .set({ ...patch, updatedAt: new Date() })
      .where('id = :id AND workspace_id = :workspaceId', { id, workspaceId: this.workspaceId })
      .andWhere('status IN (:...from)', { from })
      .returning('*')
      .execute();
    const raw = (result.raw as Record<string, unknown>[])[0];
    return raw ? this.fromRaw(raw) : null;
  }

  /** The conversation locked for an update that depends on its current state. */
  async findForUpdate(id: string): Promise<ConversationEntity | null> {
    if (!isUuid(id)) return null;
    return this.scopedQuery().andWhere('cv.id = :id', { id }).setLock('pessimistic_write').getOne();
  }

  /** The contact's newest conversation on this channel that is not RESOLVED, locked for the update that follows. */
  async findOpenForUpdate(channelId: string, contactId: string): Promise<ConversationEntity | null> {
    // Plain SQL, not the query builder: the pipeline runs it for every message (building and
    // hydrating through TypeORM was ~5 % of the worker's CPU, session 24).
    const rows = await this.queryRows<Record<string, unknown>>(
      `SELECT * FROM conversations
        WHERE workspace_id = $1 AND channel_id = $2 AND contact_id = $3 AND status <> 'RESOLVED'
        ORDER BY created_at DESC, id DESC
        LIMIT 1
        FOR UPDATE`,
      [channelId, contactId],
    );
    return rows[0] ? this.fromRaw(rows[0]) : null;
  }

  /**
   * For each (channel, contact): the newest conversation that is not RESOLVED, read only — the
   * inbound pipeline's look-up for a group of events; the message store locks and re-checks it
   * (MessagesRepository.insertInboundIfOpen). One index probe per pair.
   */
  async findOpenIds(
    pairs: readonly { channelId: string; contactId: string }[],
  ): Promise<{ channelId: string; contactId: string; id: string }[]> {
    if (pairs.length === 0) return [];
    const rows = await this.queryRows<{ channel_id: string; contact_id: string; id: string }>(
      `SELECT k.channel_id, k.contact_id, o.id
         FROM unnest($2::uuid[], $3::uuid[]) AS k(channel_id, contact_id)
         CROSS JOIN LATERAL (
           SELECT cv.id FROM conversations cv
            WHERE cv.workspace_id = $1 AND cv.channel_id = k.channel_id AND cv.contact_id = k.contact_id
              AND cv.status <> 'RESOLVED'
            ORDER BY cv.created_at DESC, cv.id DESC
            LIMIT 1
         ) o`,
      [pairs.map((p) => p.channelId), pairs.map((p) => p.contactId)],
    );
    return rows.map((r) => ({ channelId: r.channel_id, contactId: r.contact_id, id: r.id }));
  }

  /**
   * Customer messages' stamps on their conversations in ONE statement (ConversationStamps): the
   * last-message fields and `last_inbound_at` move to each conversation's message.
   */
  async stampInbound(stamps: readonly { conversationId: string; at: Date; preview: string }[]): Promise<void> {
    if (stamps.length === 0) return;
    await this.query(
      `UPDATE conversations cv
          SET last_message_at = v.at, last_message_preview = v.preview, last_inbound_at = v.at, updated_at = now()
         FROM unnest($2::uuid[], $3::timestamptz[], $4::text[]) AS v(id, at, preview)
        WHERE cv.workspace_id = $1 AND cv.id = v.id`,
      [stamps.map((s) => s.conversationId), stamps.map((s) => s.at.toISOString()), stamps.map((s) => s.preview)],
    );
  }

  /** A conversation from its whole row as JSON (`to_jsonb(conversations.*)`, snake_case keys). */
  hydrate(row: Record<string, unknown>): ConversationEntity {
    return this.fromRaw(row);
  }

  /** SLA module: the due times of the policy that applies to this conversation (null clears them). */
  async setDueDates(id: string, firstResponseDueAt: Date | null, resolutionDueAt: Date | null): Promise<void> {
    if (!isUuid(id)) return;
    await this.query(
      `UPDATE conversations SET first_response_due_at = $3, resolution_due_at = $4, updated_at = now()
        WHERE workspace_id = $1 AND id = $2`,
      [id, firstResponseDueAt, resolutionDueAt],
    );
  }

  /** The oldest conversation waiting unassigned in the queue, locked (others skip it). */
  async lockOldestWaiting(queueId: string): Promise<string | null> {
    const rows: { id: string }[] = await this.query(
      `SELECT id FROM conversations
       WHERE workspace_id = $1 AND queue_id = $2 AND status = 'OPEN' AND assignee_id IS NULL
       ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
      [queueId],
    );
    return rows[0]?.id ?? null;
  }

  /** Routing's automatic assignment of a waiting conversation. */
  async assignWaiting(conversationId: string, userId: string): Promise<void> {
    await this.query(
      `UPDATE conversations SET assignee_id = $3, assigned_at = now(), updated_at = now()
       WHERE workspace_id = $1 AND id = $2`,
      [conversationId, userId],
    );
  }

  /** A deleted queue's conversations join another queue (the default). */
  async moveQueue(fromQueueId: string, toQueueId: string): Promise<void> {
    await this.query(
      `UPDATE conversations SET queue_id = $3, updated_at = now() WHERE workspace_id = $1 AND queue_id = $2`,
      [fromQueueId, toQueueId],
    );
  }

  /** Contact merge: the duplicates' conversations move to the primary contact. */
  async moveContact(fromContactIds: readonly string[], toContactId: string): Promise<void> {
    if (fromContactIds.length === 0) return;
    await this.query(
      `UPDATE conversations SET contact_id = $3, updated_at = now() WHERE workspace_id = $1 AND contact_id = ANY($2::uuid[])`,
      [fromContactIds, toContactId],
    );
  }
}
