import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { JwtService } from '@nestjs/jwt';
import { createHash } from 'node:crypto';
import { AppException } from 'src/core/errors/app.exception';
import type { AuthRequest } from './auth-request';
import { IS_PUBLIC } from './decorators/auth.decorators';
import { AUTH_LOOKUP, type AuthLookup } from './principal';

export const API_TOKEN_PREFIX = 'sit_';

export function hashApiToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface JwtClaims {
  readonly sub: string;
  readonly exp?: number;
}

/** First guard: who is calling. Accepts `Bearer <jwt>`, `Bearer sit_…` and `X-Api-Key: sit_…`. Secure by default. */
/** User JWTs are HS256 only, on sign and verify (issue 9): no alg confusion, no `none`. */
export const JWT_ALGORITHM = 'HS256' as const;

@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly jwt: JwtService,
    @Inject(AUTH_LOOKUP) private readonly lookup: AuthLookup,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<AuthRequest>();
    const credential = this.credentialOf(request);
    if (!credential) throw AppException.unauthenticated();

    if (credential.startsWith(API_TOKEN_PREFIX)) {
      const grant = await this.lookup.findToken(hashApiToken(credential));
      if (!grant) throw AppException.unauthenticated('Invalid, expired or revoked API token');
      request.principal = {
        type: 'api_token',
        tokenId: grant.tokenId,
        workspaceId: grant.workspaceId,
        scopes: grant.scopes,
      };
      request.tokenGrant = grant;
      await this.lookup.touchToken(grant);
      return true;
    }
    try {
      const claims = await this.jwt.verifyAsync<JwtClaims>(credential, { algorithms: [JWT_ALGORITHM] });
      if (typeof claims.exp !== 'number') throw new Error('no expiry');
      if (typeof claims.sub !== 'string') throw new Error('no subject');
      request.principal = { type: 'user', userId: claims.sub };
      return true;
    } catch {
      throw AppException.unauthenticated('Invalid or expired token');
    }
  }

  private credentialOf(request: AuthRequest): string | null {
    const header = request.headers.authorization;
    if (typeof header === 'string') {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      return match?.[1] ?? null;
    }
    const apiKey = request.headers['x-api-key'];
    return typeof apiKey === 'string' && apiKey.length > 0 ? apiKey : null;
  }
}
