import { Injectable } from '@nestjs/common';
import { Brackets, type SelectQueryBuilder } from 'typeorm';
import { PRIORITIES, type Priority } from 'src/core/domain/vocabulary';
import { foreignKeyViolation, likePattern } from 'src/core/database/pg-errors';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { isUuid } from 'src/core/http/uuid';
import { type CursorPaginationQuery, type Page, findKeysetPage, newestFirst } from 'src/core/http/pagination';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { TicketEntity } from './ticket.entity';
import { TICKET_STATUSES, type TicketSource, type TicketStatus } from './tickets.constants';

export interface TicketFilters {
  readonly statuses?: readonly TicketStatus[];
  readonly priorities?: readonly Priority[];
  readonly search?: string;
  /** A user id, or null for unassigned tickets. */
  readonly assigneeId?: string | null;
  readonly queueId?: string;
  readonly contactId?: string;
  readonly conversationId?: string;
  readonly tag?: string;
  readonly source?: TicketSource;
  readonly from?: string;
  readonly to?: string;
}

export type NewTicket = Omit<TicketEntity, 'id' | 'workspaceId' | 'number' | 'key' | 'updatedAt'>;

export interface TicketStatsRow {
  readonly byStatus: Record<TicketStatus, number>;
  readonly byPriority: Record<Priority, number>;
  readonly overdue: number;
  readonly createdToday: number;
  readonly resolvedToday: number;
  readonly averageResolutionSeconds: number | null;
}

/** Which referenced record a foreign-key violation names. */
const FK_LABELS: Record<string, string> = {
  tickets_assignee_fkey: 'Assignee',
  tickets_queue_fkey: 'Queue',
  tickets_contact_fkey: 'Contact',
  tickets_conversation_fkey: 'Conversation',
};

@Injectable()
export class TicketsRepository extends WorkspaceScopedRepository<TicketEntity> {
  constructor(tx: TransactionHost) {
    super(tx, TicketEntity, 't', 'Ticket');
  }

  findPage(filters: TicketFilters, query: CursorPaginationQuery): Promise<Page<TicketEntity>> {
    return findKeysetPage(this.filtered(filters), query, newestFirst<TicketEntity>('t'));
  }

  /** The newest `limit` tickets of one status (a board column). */
  findNewestInStatus(filters: TicketFilters, status: TicketStatus, limit: number): Promise<TicketEntity[]> {
    return this.filtered(filters)
      .andWhere('t.status = :columnStatus', { columnStatus: status })
      .orderBy('t.created_at', 'DESC')
      .addOrderBy('t.id', 'DESC')
      .limit(limit)
      .getMany();
  }

  /** Matching tickets per status (every status, zeros included). */
  async countByStatus(filters: TicketFilters): Promise<Record<TicketStatus, number>> {
    const qb = this.filtered(filters).select([]);
    for (const status of TICKET_STATUSES) {
      qb.addSelect(`count(*) FILTER (WHERE t.status = '${status}')::int`, `s_${status}`);
    }
    const raw = (await qb.getRawOne<Record<string, number>>()) ?? {};
    return Object.fromEntries(TICKET_STATUSES.map((s) => [s, raw[`s_${s}`] ?? 0])) as Record<TicketStatus, number>;
  }

  /**
   * GET /tickets/stats in one statement. "Today" starts at midnight in `timezone` (the workspace's);
   * overdue = past dueAt and neither RESOLVED nor CLOSED.
   */
  async stats(filters: TicketFilters, timezone: string): Promise<TicketStatsRow> {
    const qb = this.filtered(filters).select([]);
    for (const status of TICKET_STATUSES) {
      qb.addSelect(`count(*) FILTER (WHERE t.status = '${status}')::int`, `s_${status}`);
    }
    for (const priority of PRIORITIES) {
      qb.addSelect(`count(*) FILTER (WHERE t.priority = '${priority}')::int`, `p_${priority}`);
    }
    const todayStart = `(date_trunc('day', now() AT TIME ZONE :timezone) AT TIME ZONE :timezone)`;
    qb.addSelect(`count(*) FILTER (WHERE t.due_at < now() AND t.status NOT IN ('RESOLVED', 'CLOSED'))::int`, 'overdue')
      .addSelect(`count(*) FILTER (WHERE t.created_at >= ${todayStart})::int`, 'created_today')
      .addSelect(`count(*) FILTER (WHERE t.resolved_at >= ${todayStart})::int`, 'resolved_today')
      .addSelect(
        `round(avg(extract(epoch FROM t.resolved_at - t.created_at)) FILTER (WHERE t.resolved_at IS NOT NULL), 3)::float8`,
        'avg_resolution',
      )
      .setParameter('timezone', timezone);
    const raw = (await qb.getRawOne<Record<string, number | null>>()) ?? {};
    const n = (key: string): number => Number(raw[key] ?? 0);
    return {
      byStatus: Object.fromEntries(TICKET_STATUSES.map((s) => [s, n(`s_${s}`)])) as Record<TicketStatus, number>,
      byPriority: Object.fromEntries(PRIORITIES.map((p) => [p, n(`p_${p}`)])) as Record<Priority, number>,
      overdue: n('overdue'),
      createdToday: n('created_today'),
      resolvedToday: n('resolved_today'),
      averageResolutionSeconds: raw.avg_resolution ?? null,
    };
  }

  /**
   * The next number of the workspace's sequence (a PostgreSQL SEQUENCE per workspace, created with the
   * workspace). Taking it locks nothing until commit, so concurrent creations never wait for each
   * other and never share a number; a rolled-back creation leaves a gap.
   */
  async nextNumber(): Promise<number> {
    const rows: { number: string }[] = await this.query(
      `SELECT nextval(ticket_number_sequence($1)::regclass) AS number`,
    );
    return Number(rows[0]!.number);
  }

  /**
   * Inserts a ticket (numbered by the caller). A reference to a record that does not exist in the
   * workspace is 404 naming it. With `ifAbsent`, a second automatic ticket for the same conversation
   * is not inserted (null) instead of failing.
   */
  async create(
    values: NewTicket & { number: number; key: string },
    options: { ifAbsent?: boolean } = {},
  ): Promise<TicketEntity | null> {
    try {
      const qb = this.repo
        .createQueryBuilder()
        .insert()
        .values({ ...values, number: String(values.number), workspaceId: this.workspaceId })
        .returning('*');
      if (options.ifAbsent) qb.orIgnore();
      const rows = (await qb.execute()).raw as Record<string, unknown>[];
      return rows[0] ? this.fromRaw(rows[0]) : null;
    } catch (error) {
      throw translated(error);
    }
  }

  /**
   * The automatic ticket of a conversation, unless it has one: the look-up, the next number of the
   * workspace's sequence and the insert in one statement (the new-conversation path of the inbound
   * pipeline, issue 16 item 3). No number is taken when the ticket exists (`nextval` is evaluated
   * only past the NOT EXISTS filter); the unique index on a conversation's automatic ticket still
   * decides between concurrent inserts (null for the loser, whose number is then spent).
   */
  async createAutomaticIfAbsent(
    values: NewTicket & { conversationId: string; source: 'CONVERSATION' },
    keyPrefix: string,
  ): Promise<TicketEntity | null> {
    try {
      const rows: Record<string, unknown>[] = await this.query(
        `WITH n AS (
           SELECT nextval(ticket_number_sequence($1)::regclass) AS number
           WHERE NOT EXISTS (SELECT 1 FROM tickets t
                             WHERE t.workspace_id = $1 AND t.conversation_id = $2 AND t.source = 'CONVERSATION')
         )
         INSERT INTO tickets (workspace_id, number, key, subject, description, status, priority, source, assignee_id,
                              queue_id, contact_id, conversation_id, tags, due_at, resolved_at, created_at)
         SELECT $1, n.number, $3::text || '-' || n.number, $4::text, $5::text, $6::text, $7::text, 'CONVERSATION',
                $8::uuid, $9::uuid, $10::uuid, $2::uuid, $11::text[], $12::timestamptz, $13::timestamptz, $14::timestamptz
         FROM n
         ON CONFLICT DO NOTHING
         RETURNING *`,
        [
          values.conversationId,
          keyPrefix,
          values.subject,
          values.description,
          values.status,
          values.priority,
          values.assigneeId,
          values.queueId,
          values.contactId,
          values.tags,
          values.dueAt,
          values.resolvedAt,
          values.createdAt,
        ],
      );
      return rows[0] ? this.fromRaw(rows[0]) : null;
    } catch (error) {
      throw translated(error);
    }
  }

  async update(id: string, patch: Omit<Partial<TicketEntity>, 'id' | 'workspaceId'>): Promise<TicketEntity> {
    try {
      return await this.updateById(id, { ...patch, updatedAt: new Date() });
    } catch (error) {
      throw translated(error);
    }
  }

  /** Whether the conversation has its automatic ticket already. */
  async existsAutomatic(conversationId: string): Promise<boolean> {
    const found = await this.scopedQuery()
      .andWhere(`t.conversation_id = :conversationId AND t.source = 'CONVERSATION'`, { conversationId })
      .getExists();
    return found;
  }

  /** Locks one ticket of the workspace for an update that depends on its current state. */
  async findForUpdate(id: string): Promise<TicketEntity | null> {
    if (!isUuid(id)) return null;
    return this.scopedQuery().andWhere('t.id = :id', { id }).setLock('pessimistic_write').getOne();
  }

  async touch(id: string): Promise<void> {
    await this.query(`UPDATE tickets SET updated_at = clock_timestamp() WHERE workspace_id = $1 AND id = $2`, [id]);
  }

  /** resolveWithConversation: resolves the conversation's automatic ticket unless it is done already. */
  async resolveAutomatic(conversationId: string): Promise<TicketEntity[]> {
    const result = await this.repo
      .createQueryBuilder()
      .update()
      .set({ status: 'RESOLVED', resolvedAt: () => 'coalesce(resolved_at, now())', updatedAt: () => 'now()' })
      .where(`workspace_id = :workspaceId AND conversation_id = :conversationId AND source = 'CONVERSATION'`, {
        workspaceId: this.workspaceId,
        conversationId,
      })
      .andWhere(`status NOT IN ('RESOLVED', 'CLOSED')`)
      .returning('*')
      .execute();
    return (result.raw as Record<string, unknown>[]).map((raw) => this.fromRaw(raw));
  }

  /** Contact merge: the duplicates' tickets move to the primary contact. */
  async moveContact(fromContactIds: readonly string[], toContactId: string): Promise<void> {
    if (fromContactIds.length === 0) return;
    await this.query(
      `UPDATE tickets SET contact_id = $3, updated_at = now() WHERE workspace_id = $1 AND contact_id = ANY($2::uuid[])`,
      [fromContactIds, toContactId],
    );
  }

  private filtered(f: TicketFilters): SelectQueryBuilder<TicketEntity> {
    const qb = this.scopedQuery();
    if (f.statuses?.length) qb.andWhere('t.status IN (:...statuses)', { statuses: f.statuses });
    if (f.priorities?.length) qb.andWhere('t.priority IN (:...priorities)', { priorities: f.priorities });
    if (f.search) {
      qb.andWhere(
        new Brackets((w) => {
          w.where('t.subject ILIKE :search').orWhere('t.description ILIKE :search').orWhere('t.key ILIKE :search');
        }),
        { search: likePattern(f.search) },
      );
    }
    if (f.assigneeId === null) qb.andWhere('t.assignee_id IS NULL');
    else if (f.assigneeId !== undefined) qb.andWhere('t.assignee_id = :assigneeId', { assigneeId: f.assigneeId });
    if (f.queueId) qb.andWhere('t.queue_id = :queueId', { queueId: f.queueId });
    if (f.contactId) qb.andWhere('t.contact_id = :contactId', { contactId: f.contactId });
    if (f.conversationId) qb.andWhere('t.conversation_id = :conversationId', { conversationId: f.conversationId });
    if (f.tag) qb.andWhere('t.tags @> ARRAY[:tag]::text[]', { tag: f.tag });
    if (f.source) qb.andWhere('t.source = :source', { source: f.source });
    if (f.from) qb.andWhere('t.created_at >= :from::timestamptz', { from: f.from });
    if (f.to) qb.andWhere('t.created_at < :to::timestamptz', { to: f.to });
    return qb;
  }
}

function translated(error: unknown): unknown {
  const constraint = foreignKeyViolation(error);
  if (constraint) return AppException.notFound(FK_LABELS[constraint] ?? 'Referenced record');
  return error;
}
