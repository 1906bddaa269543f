import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { QueueEntity } from './queue.entity';

@Injectable()
export class QueuesRepository extends WorkspaceScopedRepository<QueueEntity> {
  constructor(tx: TransactionHost) {
    super(tx, QueueEntity, 'q', 'Queue');
  }

  findDefault(): Promise<QueueEntity | null> {
    return this.scopedQuery().andWhere('q.is_default').getOne();
  }

  /** Adds members to a queue; already-present members are left as they are. */
  async addMembers(queueId: string, userIds: readonly string[]): Promise<void> {
    if (userIds.length === 0) return;
    await this.tx.manager.query(
      `INSERT INTO queue_members (workspace_id, queue_id, user_id)
       SELECT $1, $2, unnest($3::uuid[])
       ON CONFLICT (queue_id, user_id) DO NOTHING`,
      [this.workspaceId, queueId, userIds],
    );
  }
}
