import type { EntityTarget, ObjectLiteral, Repository, SelectQueryBuilder } from 'typeorm';
import { AppException } from 'src/core/errors/app.exception';
import { queryRows } from 'src/core/database/sql';
import type { TransactionHost } from 'src/core/database/transaction-host';
import { isUuid } from 'src/core/http/uuid';
import { getTenantContext } from './tenant-context';

export interface WorkspaceOwned extends ObjectLiteral {
  id: string;
  workspaceId: string;
}

/**
 * The only way to read or write a tenant-owned table. Every query it builds carries the caller's
 * workspace from the tenant context; a write never trusts a caller-supplied workspaceId; a missing
 * or foreign id is NotFound. Subclasses add their queries on top of `scopedQuery()`, or write raw SQL
 * through `query`/`queryRows`, which always bind the caller's workspace as `$1`. There is no public
 * (or protected) transaction or manager handle: the transaction is joined automatically, and
 * `src/core/tenancy/scoped-sql.spec.ts` fails when a scoped repository's SQL names a tenant table
 * without `workspace_id`.
 */
export abstract class WorkspaceScopedRepository<T extends WorkspaceOwned> {
  protected constructor(
    private readonly tx: TransactionHost,
    private readonly entity: EntityTarget<T>,
    protected readonly alias: string,
    private readonly label: string,
  ) {}

  /** The caller's workspace; throws when there is no tenant context (fail closed). */
  protected get workspaceId(): string {
    return getTenantContext().workspaceId;
  }

  /**
   * A raw statement in the open transaction (or on the pool) with the caller's workspace bound as `$1`;
   * `params` are `$2`, `$3`, …. The result is TypeORM's raw answer (UPDATE/DELETE: `[rows, count]`).
   */
  protected query<R = unknown>(sql: string, params: readonly unknown[] = []): Promise<R> {
    return this.tx.manager.query(sql, [this.workspaceId, ...params]) as Promise<R>;
  }

  /** `query`, answering rows for every kind of statement (RETURNING rows of UPDATE/DELETE included). */
  protected queryRows<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return queryRows<R>(this.tx.manager, sql, [this.workspaceId, ...params]);
  }

  /**
   * `queryRows` for a statement that must not wait behind other work (webhook acknowledgements): on
   * PostgreSQL outside a transaction it runs on the acknowledgements' own pool (TransactionHost.foregroundRows).
   */
  protected foregroundRows<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return this.tx.foregroundRows<R>(sql, [this.workspaceId, ...params]);
  }

  /** Whether `apartRows` is available (PostgreSQL; the embedded engine has one session). */
  protected get commitsApart(): boolean {
    return this.tx.commitsApart;
  }

  /** `queryRows` as a transaction of its own, committed at once beside the open one (PostgreSQL: TransactionHost.apartRows). */
  protected apartRows<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return this.tx.apartRows<R>(sql, [this.workspaceId, ...params]);
  }

  /** Runs `fn` in a transaction of its own, or joins the open one. */
  protected transaction<R>(fn: () => Promise<R>): Promise<R> {
    return this.tx.run(fn);
  }

  protected get repo(): Repository<T> {
    return this.tx.manager.getRepository(this.entity);
  }

  /** A SELECT on this table already filtered by the caller's workspace. */
  protected scopedQuery(alias: string = this.alias): SelectQueryBuilder<T> {
    return this.repo.createQueryBuilder(alias).where(`${alias}.workspace_id = :scopeWorkspaceId`, {
      scopeWorkspaceId: this.workspaceId,
    });
  }

  async findById(id: string): Promise<T | null> {
    if (!isUuid(id)) return null;
    return this.scopedQuery().andWhere(`${this.alias}.id = :id`, { id }).getOne();
  }

  async getById(id: string): Promise<T> {
    const row = await this.findById(id);
    if (!row) throw AppException.notFound(this.label);
    return row;
  }

  /**
   * Runs after each write of the generic helpers below (insert, update, delete by id), in the same
   * transaction: a repository whose table feeds a cache says so here (`CacheInvalidation.changed`).
   * Default: nothing.
   */
  protected async afterWrite(): Promise<void> {}

  /** Inserts one row stamped with the caller's workspace and returns it as stored. */
  async insert(values: Omit<Partial<T>, 'workspaceId'>): Promise<T> {
    const rows = await this.insertMany([values]);
    return rows[0] as T;
  }

  /** One INSERT for many rows, each stamped with the caller's workspace. */
  async insertMany(values: Omit<Partial<T>, 'workspaceId'>[]): Promise<T[]> {
    if (values.length === 0) return [];
    const workspaceId = this.workspaceId;
    const stamped = values.map((v) => ({ ...v, workspaceId }));
    const result = await this.repo
      .createQueryBuilder()
      .insert()
      .values(stamped as never)
      .returning('*')
      .execute();
    await this.afterWrite();
    return (result.raw as Record<string, unknown>[]).map((raw) => this.fromRaw(raw));
  }

  /** Updates one row of the caller's workspace; 0 rows → NotFound. Returns the row as stored. */
  async updateById(id: string, patch: Omit<Partial<T>, 'id' | 'workspaceId'>): Promise<T> {
    if (!isUuid(id)) throw AppException.notFound(this.label);
    const { workspaceId: _ignored, id: _id, ...safe } = patch as Partial<T>;
    void _ignored;
    void _id;
    if (Object.keys(safe).length === 0) return this.getById(id);
    const result = await this.repo
      .createQueryBuilder()
      .update()
      .set(safe as never)
      .where('id = :id AND workspace_id = :workspaceId', { id, workspaceId: this.workspaceId })
      .returning('*')
      .execute();
    await this.afterWrite();
    const raw = (result.raw as Record<string, unknown>[])[0];
    if (!raw) throw AppException.notFound(this.label);
    return this.fromRaw(raw);
  }

  /** Deletes one row of the caller's workspace; 0 rows → NotFound. */
  async deleteById(id: string): Promise<void> {
    if (!isUuid(id)) throw AppException.notFound(this.label);
    const result = await this.repo
      .createQueryBuilder()
      .delete()
      .where('id = :id AND workspace_id = :workspaceId', { id, workspaceId: this.workspaceId })
      .execute();
    await this.afterWrite();
    if (!result.affected) throw AppException.notFound(this.label);
  }

  /** Turns a raw `RETURNING *` row (snake_case columns) into an entity instance. */
  protected fromRaw(raw: Record<string, unknown>): T {
    const metadata = this.repo.metadata;
    const entity = metadata.create(this.tx.manager.queryRunner) as T;
    for (const column of metadata.columns) {
      if (column.databaseName in raw) {
        column.setEntityValue(
          entity,
          this.tx.manager.connection.driver.prepareHydratedValue(raw[column.databaseName], column),
        );
      }
    }
    return entity;
  }
}
