import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { RolePermissionEntity } from './role-permission.entity';

@Injectable()
export class PermissionsRepository extends WorkspaceScopedRepository<RolePermissionEntity> {
  constructor(tx: TransactionHost) {
    super(tx, RolePermissionEntity, 'rp', 'Role permissions');
  }

  findAll(): Promise<RolePermissionEntity[]> {
    return this.scopedQuery().getMany();
  }

  async upsert(role: RolePermissionEntity['role'], permissions: readonly string[]): Promise<void> {
    await this.query(
      `INSERT INTO role_permissions (workspace_id, role, permissions) VALUES ($1, $2, $3)
       ON CONFLICT (workspace_id, role) DO UPDATE SET permissions = EXCLUDED.permissions, updated_at = now()`,
      [role, permissions],
    );
  }

  async deleteAll(): Promise<void> {
    await this.query('DELETE FROM role_permissions WHERE workspace_id = $1');
  }
}
