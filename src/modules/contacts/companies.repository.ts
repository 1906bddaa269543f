import { Injectable } from '@nestjs/common';
import { Brackets } from 'typeorm';
import { likePattern, uniqueViolation } from 'src/core/database/pg-errors';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { type Page, findKeysetPage, newestFirst } from 'src/core/http/pagination';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { CompanyEntity } from './company.entity';
import type { ListCompaniesQuery } from './dto/company.dto';

@Injectable()
export class CompaniesRepository extends WorkspaceScopedRepository<CompanyEntity> {
  constructor(tx: TransactionHost) {
    super(tx, CompanyEntity, 'co', 'Company');
  }

  findPage(query: ListCompaniesQuery): Promise<Page<CompanyEntity>> {
    const qb = this.scopedQuery();
    if (query.search) {
      qb.andWhere(new Brackets((w) => w.where('co.name ILIKE :search').orWhere('co.domain ILIKE :search')), {
        search: likePattern(query.search),
      });
    }
    return findKeysetPage(qb, query, newestFirst<CompanyEntity>('co'));
  }

  async create(values: { name: string; domain: string | null }): Promise<CompanyEntity> {
    try {
      return await this.insert(values);
    } catch (error) {
      if (uniqueViolation(error) === 'companies_workspace_domain_key') {
        throw AppException.conflict(`A company with the domain ${values.domain} already exists`);
      }
      throw error;
    }
  }

  /** Companies of the caller's workspace by id (unknown ids are left out). */
  async findByIds(ids: readonly string[]): Promise<CompanyEntity[]> {
    if (ids.length === 0) return [];
    return this.scopedQuery()
      .andWhere('co.id = ANY(:ids::uuid[])', { ids: [...new Set(ids)] })
      .getMany();
  }

  /**
   * Company ids by case-insensitive name, creating the names that do not exist yet (CSV import).
   * Where several companies share a name, the oldest is used; a new one takes the first spelling given.
   * Two queries for any number of names.
   */
  async findOrCreateByNames(names: readonly string[]): Promise<Map<string, string>> {
    const byKey = new Map<string, string>();
    for (const name of names) if (!byKey.has(name.toLowerCase())) byKey.set(name.toLowerCase(), name);
    if (byKey.size === 0) return new Map();
    const found: { k: string; id: string }[] = await this.query(
      `SELECT DISTINCT ON (lower(name)) lower(name) AS k, id FROM companies
       WHERE workspace_id = $1 AND lower(name) = ANY($2::text[])
       ORDER BY lower(name), created_at, id`,
      [[...byKey.keys()]],
    );
    const result = new Map(found.map((r) => [r.k, r.id]));
    const missing = [...byKey.entries()].filter(([k]) => !result.has(k)).map(([, name]) => name);
    if (missing.length > 0) {
      const created: { k: string; id: string }[] = await this.query(
        `INSERT INTO companies (workspace_id, name) SELECT $1, n FROM unnest($2::text[]) AS n RETURNING lower(name) AS k, id`,
        [missing],
      );
      for (const r of created) result.set(r.k, r.id);
    }
    return result;
  }
}
