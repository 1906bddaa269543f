import { SetMetadata, applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import type { PermissionKey, Scope } from '../permissions';

export const IS_PUBLIC = 'auth:public';
export const REQUIRED_PERMISSION = 'auth:permission';
export const ANY_MEMBER = 'auth:any-member';
export const NO_WORKSPACE = 'auth:no-workspace';
export const REQUIRED_SCOPES = 'auth:scopes';

/**
 * A user JWT with `x-workspace-id`, or an API token alone: two alternative OpenAPI security
 * requirements (the `workspace` apiKey scheme lets Swagger's Authorize set the header once).
 */
const workspaceHeader = ApiSecurity({ bearer: [], workspace: [] });

/** No authentication (login, signup, platform webhooks, health). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

/** The caller's role must grant this permission in its workspace's matrix. */
export const RequirePermission = (permission: PermissionKey): MethodDecorator & ClassDecorator =>
  applyDecorators(SetMetadata(REQUIRED_PERMISSION, permission), ApiBearerAuth(), workspaceHeader);

/** Any member of the workspace (e.g. `GET /permissions/me`). */
export const AnyMember = (): MethodDecorator & ClassDecorator =>
  applyDecorators(SetMetadata(ANY_MEMBER, true), ApiBearerAuth(), workspaceHeader);

/** An authenticated user, no workspace header needed (e.g. `POST /workspaces`). */
export const NoWorkspace = (): MethodDecorator & ClassDecorator =>
  applyDecorators(SetMetadata(NO_WORKSPACE, true), ApiBearerAuth());

/** Only API tokens carrying every listed scope (the catalogue feed). */
export const RequireScopes = (...scopes: Scope[]): MethodDecorator & ClassDecorator =>
  applyDecorators(SetMetadata(REQUIRED_SCOPES, scopes), ApiSecurity('bearer'));
