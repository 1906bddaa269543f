import type { Role } from './roles';

export type Principal =
  | { readonly type: 'user'; readonly userId: string }
  | {
      readonly type: 'api_token';
      readonly tokenId: string;
      readonly workspaceId: string;
      readonly scopes: readonly string[];
    };

export interface MembershipGrant {
  readonly role: Role;
  /** The workspace's override for this role, or null for the defaults. */
  readonly permissions: readonly string[] | null;
  readonly plan: string;
}

export interface TokenGrant {
  readonly tokenId: string;
  readonly workspaceId: string;
  readonly scopes: readonly string[];
  readonly plan: string;
  readonly permissions: readonly string[] | null;
  readonly lastUsedAt: Date | null;
}

/** Port the guards use to look principals up; implemented by the auth module (cross-tenant by design). */
export interface AuthLookup {
  findToken(tokenHash: string): Promise<TokenGrant | null>;
  touchToken(grant: TokenGrant): Promise<void>;
  findMembership(userId: string, workspaceId: string): Promise<MembershipGrant | null>;
  userExists(userId: string): Promise<boolean>;
}

export const AUTH_LOOKUP = Symbol('AUTH_LOOKUP');
