import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { CacheInvalidation } from 'src/core/events/cache-invalidation';
import { type CursorPaginationQuery, type Page, findKeysetPage, newestFirst } from 'src/core/http/pagination';
import { isUuid } from 'src/core/http/uuid';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { QueueEntity } from './queue.entity';

@Injectable()
export class QueuesRepository extends WorkspaceScopedRepository<QueueEntity> {
  constructor(
    tx: TransactionHost,
    private readonly invalidation: CacheInvalidation,
  ) {
    super(tx, QueueEntity, 'q', 'Queue');
  }

  findDefault(): Promise<QueueEntity | null> {
    return this.scopedQuery().andWhere('q.is_default').getOne();
  }

  findPage(query: CursorPaginationQuery): Promise<Page<QueueEntity>> {
    return findKeysetPage(this.scopedQuery(), query, newestFirst<QueueEntity>('q'));
  }

  /** Adds members to a queue; already-present members are left as they are. */
  async addMembers(queueId: string, userIds: readonly string[]): Promise<void> {
    if (userIds.length === 0) return;
    await this.query(
      `INSERT INTO queue_members (workspace_id, queue_id, user_id)
       SELECT $1, $2, unnest($3::uuid[])
       ON CONFLICT (queue_id, user_id) DO NOTHING`,
      [queueId, userIds],
    );
  }

  /** Makes the queue's members exactly `userIds`. */
  async replaceMembers(queueId: string, userIds: readonly string[]): Promise<void> {
    await this.query(
      `DELETE FROM queue_members WHERE workspace_id = $1 AND queue_id = $2 AND NOT (user_id = ANY($3::uuid[]))`,
      [queueId, userIds],
    );
    await this.addMembers(queueId, userIds);
  }

  /** Member ids per queue, in the order they joined. */
  async memberIds(queueIds: readonly string[]): Promise<Map<string, string[]>> {
    const result = new Map<string, string[]>(queueIds.map((id) => [id, []]));
    if (queueIds.length === 0) return result;
    const rows: { queue_id: string; user_id: string }[] = await this.query(
      `SELECT queue_id, user_id FROM queue_members
       WHERE workspace_id = $1 AND queue_id = ANY($2::uuid[]) ORDER BY created_at, user_id`,
      [queueIds],
    );
    for (const row of rows) result.get(row.queue_id)?.push(row.user_id);
    return result;
  }

  /** Which of these user ids are members of the workspace. */
  async existingMembers(userIds: readonly string[]): Promise<Set<string>> {
    const ids = userIds.filter(isUuid);
    if (ids.length === 0) return new Set();
    const rows: { user_id: string }[] = await this.query(
      `SELECT user_id FROM memberships WHERE workspace_id = $1 AND user_id = ANY($2::uuid[])`,
      [ids],
    );
    return new Set(rows.map((r) => r.user_id));
  }

  /** Ids of every queue this member belongs to. */
  async queueIdsOf(userId: string): Promise<string[]> {
    if (!isUuid(userId)) return [];
    const rows: { queue_id: string }[] = await this.query(
      `SELECT queue_id FROM queue_members WHERE workspace_id = $1 AND user_id = $2`,
      [userId],
    );
    return rows.map((r) => r.queue_id);
  }

  /** Ids of the queues this member belongs to whose strategy assigns automatically. */
  async autoAssigningQueueIdsOf(userId: string): Promise<string[]> {
    const rows: { id: string }[] = await this.query(
      `SELECT q.id FROM queues q JOIN queue_members qm ON qm.queue_id = q.id AND qm.workspace_id = q.workspace_id
       WHERE q.workspace_id = $1 AND qm.user_id = $2 AND q.strategy <> 'MANUAL' ORDER BY q.created_at, q.id`,
      [userId],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Clears the default flag so another queue can take it (the unique index allows one). Every
   * process's cached default-queue id is dropped when the transaction commits.
   */
  async clearDefault(): Promise<void> {
    await this.query(`UPDATE queues SET is_default = false, updated_at = now() WHERE workspace_id = $1 AND is_default`);
    await this.invalidation.changed('default-queue');
  }
}
