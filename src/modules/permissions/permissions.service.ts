import { Injectable } from '@nestjs/common';
import { PERMISSIONS, PERMISSION_KEYS } from 'src/core/auth/permissions';
import { ROLES, type Role } from 'src/core/auth/roles';
import { permissionsOf } from 'src/core/auth/workspace.guard';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import type { MyPermissionsResponse, PermissionsResponse, UpdatePermissionsDto } from './dto/permissions.dto';
import { PermissionsRepository } from './permissions.repository';

/**
 * The role matrix. Defaults live in code (DESIGN §3.4); a workspace stores a row only for a role it
 * changed, so `reset` is deleting its rows and new permission keys reach untouched roles by default.
 */
@Injectable()
export class PermissionsService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly repository: PermissionsRepository,
  ) {}

  async get(_ctx: TenantContext): Promise<PermissionsResponse> {
    const overrides = new Map((await this.repository.findAll()).map((row) => [row.role as Role, row.permissions]));
    const matrix: Record<string, string[]> = {};
    for (const role of ROLES) matrix[role] = [...permissionsOf(role, overrides.get(role) ?? null)];
    return {
      roles: [...ROLES],
      permissions: PERMISSION_KEYS.map((key) => ({ key, description: PERMISSIONS[key] })),
      matrix,
    };
  }

  async update(ctx: TenantContext, dto: UpdatePermissionsDto): Promise<PermissionsResponse> {
    const { ADMIN, SUPERVISOR, AGENT } = dto.matrix;
    if (ADMIN && PERMISSION_KEYS.some((key) => !ADMIN.includes(key))) {
      throw AppException.field('matrix.ADMIN', 'cannot be reduced: ADMIN always holds every permission');
    }
    await this.tx.run(async () => {
      if (SUPERVISOR) await this.repository.upsert('SUPERVISOR', SUPERVISOR);
      if (AGENT) await this.repository.upsert('AGENT', AGENT);
    });
    return this.get(ctx);
  }

  async reset(ctx: TenantContext): Promise<PermissionsResponse> {
    await this.repository.deleteAll();
    return this.get(ctx);
  }

  me(ctx: TenantContext): MyPermissionsResponse {
    return {
      role: ctx.actor.role,
      permissions: PERMISSION_KEYS.filter((key) => ctx.permissions.has(key)),
      authenticatedBy: ctx.actor.type === 'api_token' ? 'api_token' : 'user',
    };
  }
}
