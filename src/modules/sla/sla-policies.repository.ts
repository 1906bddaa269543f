import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { SlaPolicyEntity } from './sla-policy.entity';

@Injectable()
export class SlaPoliciesRepository extends WorkspaceScopedRepository<SlaPolicyEntity> {
  constructor(tx: TransactionHost) {
    super(tx, SlaPolicyEntity, 'p', 'SLA policy');
  }

  /** Every policy of the workspace in matching order: `order`, then oldest first. */
  findAllOrdered(): Promise<SlaPolicyEntity[]> {
    return this.scopedQuery()
      .orderBy('p.position', 'ASC')
      .addOrderBy('p.created_at', 'ASC')
      .addOrderBy('p.id', 'ASC')
      .getMany();
  }

  /** The active policies in matching order. */
  findActiveOrdered(): Promise<SlaPolicyEntity[]> {
    return this.scopedQuery()
      .andWhere('p.active')
      .orderBy('p.position', 'ASC')
      .addOrderBy('p.created_at', 'ASC')
      .addOrderBy('p.id', 'ASC')
      .getMany();
  }

  async count(): Promise<number> {
    return this.scopedQuery().getCount();
  }

  /** One past the highest `order` in use (0 for the first policy). */
  async nextOrder(): Promise<number> {
    const row = await this.scopedQuery()
      .select('coalesce(max(p.position) + 1, 0)::int', 'next')
      .getRawOne<{ next: number }>();
    return row?.next ?? 0;
  }

  async update(id: string, patch: Omit<Partial<SlaPolicyEntity>, 'id' | 'workspaceId'>): Promise<SlaPolicyEntity> {
    return this.updateById(id, { ...patch, updatedAt: new Date() });
  }
}
