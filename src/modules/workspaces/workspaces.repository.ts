import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { isUuid } from 'src/core/http/uuid';
import { getTenantContext } from 'src/core/tenancy/tenant-context';
import { WorkspaceEntity, type WorkspacePlan } from './workspace.entity';

/**
 * SYSTEM (in part): the workspace row is the tenant itself; reads and updates go to the caller's own workspace.
 * `create`, `setPlan` and `exists*` are system operations (signup, CLI, bootstrap).
 */
@Injectable()
export class WorkspacesRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get repo() {
    return this.tx.manager.getRepository(WorkspaceEntity);
  }

  async findCurrent(): Promise<WorkspaceEntity> {
    const row = await this.repo.findOneBy({ id: getTenantContext().workspaceId });
    if (!row) throw AppException.notFound('Workspace');
    return row;
  }

  async updateCurrent(patch: Partial<Pick<WorkspaceEntity, 'name' | 'timezone'>>): Promise<WorkspaceEntity> {
    if (Object.keys(patch).length > 0) await this.repo.update({ id: getTenantContext().workspaceId }, patch);
    return this.findCurrent();
  }

  create(values: { name: string; plan: WorkspacePlan }): Promise<WorkspaceEntity> {
    return this.repo.save(this.repo.create({ ...values, timezone: 'UTC' }));
  }

  async setPlan(id: string, plan: WorkspacePlan): Promise<WorkspaceEntity> {
    if (!isUuid(id)) throw AppException.notFound('Workspace');
    const result = await this.repo.update({ id }, { plan });
    if (!result.affected) throw AppException.notFound('Workspace');
    return this.repo.findOneByOrFail({ id });
  }

  findById(id: string): Promise<WorkspaceEntity | null> {
    return isUuid(id) ? this.repo.findOneBy({ id }) : Promise.resolve(null);
  }

  async existsAny(): Promise<boolean> {
    return (await this.repo.createQueryBuilder('w').select('1').limit(1).getRawOne()) !== undefined;
  }

  /** Serialises concurrent first-start bootstraps of several instances (transaction-scoped advisory lock). */
  async lockBootstrap(): Promise<void> {
    await this.tx.manager.query('SELECT pg_advisory_xact_lock(727431002)');
  }

  /** The workspaces a user belongs to, with role: for the login response. */
  listForUser(userId: string): Promise<{ id: string; name: string; plan: WorkspacePlan; role: string }[]> {
    return this.tx.manager.query(
      `SELECT w.id, w.name, w.plan, m.role FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
       WHERE m.user_id = $1 ORDER BY m.created_at, w.id`,
      [userId],
    );
  }

  /** Every workspace with its member count, oldest first (operator CLI `workspace:list`). */
  listAll(
    limit: number,
  ): Promise<{ id: string; name: string; plan: WorkspacePlan; members: number; createdAt: Date }[]> {
    return this.tx.manager.query(
      `SELECT w.id, w.name, w.plan, w.created_at AS "createdAt",
              (SELECT count(*)::int FROM memberships m WHERE m.workspace_id = w.id) AS members
       FROM workspaces w ORDER BY w.created_at, w.id LIMIT $1`,
      [limit],
    );
  }

  /** Members of one workspace with their user, in joining order (operator CLI `user:list`). */
  listMembers(
    workspaceId: string,
    limit: number,
  ): Promise<{ userId: string; email: string; name: string; role: string }[]> {
    return this.tx.manager.query(
      `SELECT u.id AS "userId", u.email, u.name, m.role FROM memberships m JOIN users u ON u.id = m.user_id
       WHERE m.workspace_id = $1 ORDER BY m.created_at, u.id LIMIT $2`,
      [workspaceId, limit],
    );
  }

  /** Every user with the workspaces they belong to (operator CLI `user:list` without --workspace). */
  listUsers(limit: number): Promise<{ userId: string; email: string; name: string; workspaces: string[] }[]> {
    return this.tx.manager.query(
      `SELECT u.id AS "userId", u.email, u.name,
              coalesce(array_agg(m.workspace_id::text ORDER BY m.created_at) FILTER (WHERE m.workspace_id IS NOT NULL), '{}') AS workspaces
       FROM users u LEFT JOIN memberships m ON m.user_id = u.id
       GROUP BY u.id ORDER BY u.created_at, u.id LIMIT $1`,
      [limit],
    );
  }
}
