import { Injectable } from '@nestjs/common';
import { uniqueViolation } from 'src/core/database/pg-errors';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { type CursorPaginationQuery, type Page, findKeysetPage, newestFirst } from 'src/core/http/pagination';
import { isUuid } from 'src/core/http/uuid';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { ContactFieldEntity } from './contact-field.entity';

/** Definitions are few per workspace; validation loads them all. */
export const MAX_FIELD_DEFINITIONS = 500;

@Injectable()
export class ContactFieldsRepository extends WorkspaceScopedRepository<ContactFieldEntity> {
  constructor(tx: TransactionHost) {
    super(tx, ContactFieldEntity, 'f', 'Custom field');
  }

  /** In creation order (the order a form shows them). */
  findPage(query: CursorPaginationQuery): Promise<Page<ContactFieldEntity>> {
    return findKeysetPage(this.scopedQuery(), query, { ...newestFirst<ContactFieldEntity>('f'), direction: 'ASC' });
  }

  findAll(): Promise<ContactFieldEntity[]> {
    return this.scopedQuery()
      .orderBy('f.created_at', 'ASC')
      .addOrderBy('f.id', 'ASC')
      .limit(MAX_FIELD_DEFINITIONS)
      .getMany();
  }

  count(): Promise<number> {
    return this.scopedQuery().getCount();
  }

  async create(values: Omit<Partial<ContactFieldEntity>, 'workspaceId'>): Promise<ContactFieldEntity> {
    try {
      return await this.insert(values);
    } catch (error) {
      if (uniqueViolation(error) === 'contact_fields_workspace_key_key') {
        throw AppException.conflict(`A custom field with the key ${values.key} already exists`);
      }
      throw error;
    }
  }

  /** Deletes a definition and returns its key; unknown → 404. */
  async deleteReturningKey(id: string): Promise<string> {
    if (!isUuid(id)) throw AppException.notFound('Custom field');
    const result = await this.repo
      .createQueryBuilder()
      .delete()
      .where('workspace_id = :workspaceId AND id = :id', { workspaceId: this.workspaceId, id })
      .returning('key')
      .execute();
    const rows: { key?: unknown }[] = Array.isArray(result.raw) ? result.raw : [];
    const key = rows[0]?.key;
    if (typeof key !== 'string') throw AppException.notFound('Custom field');
    return key;
  }
}
