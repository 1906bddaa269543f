import { Injectable } from '@nestjs/common';
import type { Role } from 'src/core/auth/roles';
import { TransactionHost } from 'src/core/database/transaction-host';
import { type CursorPaginationQuery, type Page, findKeysetPage, newestFirst } from 'src/core/http/pagination';
import { isUuid } from 'src/core/http/uuid';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { MembershipEntity } from './membership.entity';

@Injectable()
export class MembersRepository extends WorkspaceScopedRepository<MembershipEntity> {
  constructor(tx: TransactionHost) {
    super(tx, MembershipEntity, 'm', 'Member');
  }

  findPage(query: CursorPaginationQuery): Promise<Page<MembershipEntity>> {
    return findKeysetPage(this.scopedQuery(), query, newestFirst<MembershipEntity>('m'));
  }

  async findByUserId(userId: string): Promise<MembershipEntity | null> {
    if (!isUuid(userId)) return null;
    return this.scopedQuery().andWhere('m.user_id = :userId', { userId }).getOne();
  }

  countAdmins(): Promise<number> {
    return this.scopedQuery().andWhere(`m.role = 'ADMIN'`).getCount();
  }

  /** Locks the workspace's admin memberships so two concurrent demotions cannot remove the last admin. */
  async lockAdmins(): Promise<void> {
    await this.scopedQuery().andWhere(`m.role = 'ADMIN'`).setLock('pessimistic_write').getMany();
  }

  add(userId: string, role: Role): Promise<MembershipEntity> {
    return this.insert({ userId, role });
  }
}
