import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { type TenantContext, getTenantContext } from 'src/core/tenancy/tenant-context';
import type { Principal } from '../principal';

/** The caller's tenant context; a missing one is a wiring bug (500), never a client error. */
export const CurrentCtx = createParamDecorator((_: unknown, _ctx: ExecutionContext): TenantContext =>
  getTenantContext(),
);

/** The authenticated principal (user or API token), set by AuthGuard. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<Request & { principal?: Principal }>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a route without authentication');
  return principal;
});
