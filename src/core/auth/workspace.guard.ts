import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppException } from 'src/core/errors/app.exception';
import { ErrorCode } from 'src/core/errors/error-codes';
import { requestIdOf } from 'src/core/http/request-id';
import { isUuid } from 'src/core/http/uuid';
import type { AuthRequest } from './auth-request';
import { IS_PUBLIC, NO_WORKSPACE } from './decorators/auth.decorators';
import { DEFAULT_MATRIX, PERMISSION_KEYS } from './permissions';
import { AUTH_LOOKUP, type AuthLookup } from './principal';
import type { Role } from './roles';

/** Third guard: which workspace, with which role and permissions. Builds the request's tenant context. */
@Injectable()
export class WorkspaceGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(AUTH_LOOKUP) private readonly lookup: AuthLookup,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const request = context.switchToHttp().getRequest<AuthRequest>();
    const principal = request.principal;
    if (!principal) throw AppException.unauthenticated();
    const header = request.headers['x-workspace-id'];
    const workspaceHeader = typeof header === 'string' && header.length > 0 ? header : null;

    if (this.reflector.getAllAndOverride<boolean>(NO_WORKSPACE, targets)) {
      if (principal.type !== 'user')
        throw AppException.forbidden('This endpoint needs a user session, not an API token');
      if (!(await this.lookup.userExists(principal.userId)))
        throw AppException.unauthenticated('User no longer exists');
      return true;
    }

    if (principal.type === 'api_token') {
      if (workspaceHeader && workspaceHeader !== principal.workspaceId) {
        throw AppException.forbidden('This API token belongs to another workspace');
      }
      const grant = request.tokenGrant;
      request.tenant = {
        workspaceId: principal.workspaceId,
        actor: { type: 'api_token', userId: null, tokenId: principal.tokenId, role: 'ADMIN' },
        scopes: principal.scopes,
        requestId: requestIdOf(request),
        permissions: new Set(PERMISSION_KEYS),
        plan: grant?.plan ?? 'STARTER',
      };
      return true;
    }

    if (!workspaceHeader) {
      throw AppException.validation('x-workspace-id header is required', [
        { field: 'x-workspace-id', message: 'header is required' },
      ]);
    }
    const membership = isUuid(workspaceHeader)
      ? await this.lookup.findMembership(principal.userId, workspaceHeader)
      : null;
    if (!membership) throw new AppException(ErrorCode.NotAMember, 'You are not a member of this workspace');
    request.tenant = {
      workspaceId: workspaceHeader,
      actor: { type: 'user', userId: principal.userId, tokenId: null, role: membership.role },
      scopes: [],
      requestId: requestIdOf(request),
      permissions: new Set(permissionsOf(membership.role, membership.permissions)),
      plan: membership.plan,
    };
    return true;
  }
}

/** ADMIN always holds everything; other roles hold the workspace's override or the defaults. */
export function permissionsOf(role: Role, override: readonly string[] | null): readonly string[] {
  if (role === 'ADMIN') return PERMISSION_KEYS;
  return override ?? DEFAULT_MATRIX[role];
}
