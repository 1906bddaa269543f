import { Injectable } from '@nestjs/common';
import type { AuthLookup, MembershipGrant, TokenGrant } from 'src/core/auth/principal';
import { isUuid } from 'src/core/http/uuid';
import { ApiTokensService } from 'src/modules/developer';
import { AuthLookupRepository } from './auth-lookup.repository';

@Injectable()
export class AuthLookupService implements AuthLookup {
  constructor(
    private readonly repository: AuthLookupRepository,
    private readonly tokens: ApiTokensService,
  ) {}

  findToken(tokenHash: string): Promise<TokenGrant | null> {
    return this.repository.findToken(tokenHash);
  }

  touchToken(grant: TokenGrant): Promise<void> {
    return this.tokens.recordUse(grant);
  }

  findMembership(userId: string, workspaceId: string): Promise<MembershipGrant | null> {
    return this.repository.findMembership(userId, workspaceId);
  }

  userExists(userId: string): Promise<boolean> {
    return isUuid(userId) ? this.repository.userExists(userId) : Promise.resolve(false);
  }
}
