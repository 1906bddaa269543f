import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppException } from 'src/core/errors/app.exception';
import { ErrorCode } from 'src/core/errors/error-codes';
import type { AuthRequest } from './auth-request';
import { REQUIRED_SCOPES } from './decorators/auth.decorators';

/** Second guard: routes marked @RequireScopes accept only API tokens holding every scope (DESIGN §3.2). */
@Injectable()
export class ScopesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const required = this.reflector.getAllAndOverride<string[] | undefined>(REQUIRED_SCOPES, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!required?.length) return true;
    const principal = context.switchToHttp().getRequest<AuthRequest>().principal;
    const held = principal?.type === 'api_token' ? principal.scopes : [];
    const missing = required.filter((scope) => !held.includes(scope));
    if (missing.length) {
      throw new AppException(
        ErrorCode.InsufficientScope,
        `This endpoint needs an API token with scope ${missing.join(', ')}`,
        missing.map((scope) => ({ field: 'scope', message: `${scope} is required` })),
      );
    }
    return true;
  }
}
