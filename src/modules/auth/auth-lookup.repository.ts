import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import type { MembershipGrant, TokenGrant } from 'src/core/auth/principal';
import type { Role } from 'src/core/auth/roles';

/**
 * SYSTEM (cross-tenant by design): resolves who a credential is before any workspace context exists.
 * One query per request: the grant, the workspace's plan and the role's permission override.
 */
@Injectable()
export class AuthLookupRepository {
  constructor(private readonly tx: TransactionHost) {}

  async findToken(tokenHash: string): Promise<TokenGrant | null> {
    const rows: { id: string; workspace_id: string; scopes: string[]; plan: string; last_used_at: Date | null }[] =
      await this.tx.manager.query(
        `SELECT t.id, t.workspace_id, t.scopes, w.plan, t.last_used_at
         FROM api_tokens t JOIN workspaces w ON w.id = t.workspace_id
         WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())`,
        [tokenHash],
      );
    const row = rows[0];
    if (!row) return null;
    return {
      tokenId: row.id,
      workspaceId: row.workspace_id,
      scopes: row.scopes,
      plan: row.plan,
      permissions: null,
      lastUsedAt: row.last_used_at,
    };
  }

  async findMembership(userId: string, workspaceId: string): Promise<MembershipGrant | null> {
    const rows: { role: Role; plan: string; permissions: string[] | null }[] = await this.tx.manager.query(
      `SELECT m.role, w.plan, rp.permissions
       FROM memberships m
       JOIN workspaces w ON w.id = m.workspace_id
       LEFT JOIN role_permissions rp ON rp.workspace_id = m.workspace_id AND rp.role = m.role
       WHERE m.user_id = $1 AND m.workspace_id = $2`,
      [userId, workspaceId],
    );
    const row = rows[0];
    return row ? { role: row.role, plan: row.plan, permissions: row.permissions } : null;
  }

  async userExists(userId: string): Promise<boolean> {
    const rows: unknown[] = await this.tx.manager.query('SELECT 1 FROM users WHERE id = $1', [userId]);
    return rows.length > 0;
  }
}
