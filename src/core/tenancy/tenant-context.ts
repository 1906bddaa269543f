import { AsyncLocalStorage } from 'node:async_hooks';
import type { Role } from 'src/core/auth/roles';

export interface Actor {
  readonly type: 'user' | 'api_token' | 'system';
  readonly userId: string | null;
  readonly tokenId: string | null;
  readonly role: Role;
}

/** What every tenant-owned read and write is scoped by. Built by WorkspaceGuard (HTTP) or the job runner. */
export interface TenantContext {
  readonly workspaceId: string;
  readonly actor: Actor;
  readonly scopes: readonly string[];
  readonly requestId: string | null;
  readonly permissions: ReadonlySet<string>;
  readonly plan: string;
}

interface Store {
  readonly requestId: string | null;
  readonly tenant: TenantContext | null;
}

const storage = new AsyncLocalStorage<Store>();

export class MissingTenantContextError extends Error {
  constructor() {
    super('No workspace context: tenant-owned data was touched outside a request or job context');
  }
}

/** Fails closed: a repository touched outside a workspace context is a wiring bug, never "all workspaces". */
export function getTenantContext(): TenantContext {
  const tenant = storage.getStore()?.tenant;
  if (!tenant) throw new MissingTenantContextError();
  return tenant;
}

export function findTenantContext(): TenantContext | null {
  return storage.getStore()?.tenant ?? null;
}

export function currentRequestId(): string | null {
  return storage.getStore()?.requestId ?? null;
}

/** Runs `fn` with this tenant context (the HTTP interceptor, once the guards built it). */
export function runInTenantContext<T>(tenant: TenantContext | null, requestId: string | null, fn: () => T): T {
  return storage.run({ requestId, tenant }, fn);
}

export const SYSTEM_ACTOR: Actor = { type: 'system', userId: null, tokenId: null, role: 'ADMIN' };

/** Runs `fn` as the given workspace (jobs, crons, bootstrap). A named, grep-able bypass of the request guards. */
export function runAsWorkspace<T>(workspaceId: string, fn: () => T, actor: Actor = SYSTEM_ACTOR): T {
  const tenant: TenantContext = {
    workspaceId,
    actor,
    scopes: [],
    requestId: currentRequestId(),
    permissions: new Set(),
    plan: '',
  };
  return storage.run({ requestId: tenant.requestId, tenant }, fn);
}
