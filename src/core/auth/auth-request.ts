import type { Request } from 'express';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import type { Principal, TokenGrant } from './principal';

/** What the guard chain leaves on the request. */
export interface AuthRequest extends Request {
  principal?: Principal;
  tokenGrant?: TokenGrant;
  tenant?: TenantContext;
}
