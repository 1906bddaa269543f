import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppException } from 'src/core/errors/app.exception';
import type { AuthRequest } from './auth-request';
import { ANY_MEMBER, IS_PUBLIC, NO_WORKSPACE, REQUIRED_PERMISSION } from './decorators/auth.decorators';

/** Last guard: the role matrix decides. A route that declares nothing is refused (fail closed). */
@Injectable()
export class PermissionGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    if (this.reflector.getAllAndOverride<boolean>(NO_WORKSPACE, targets)) return true;
    const tenant = context.switchToHttp().getRequest<AuthRequest>().tenant;
    if (!tenant) throw AppException.unauthenticated();
    if (this.reflector.getAllAndOverride<boolean>(ANY_MEMBER, targets)) return true;
    const permission = this.reflector.getAllAndOverride<string | undefined>(REQUIRED_PERMISSION, targets);
    if (!permission) throw AppException.forbidden('This endpoint declares no permission');
    if (!tenant.permissions.has(permission))
      throw AppException.forbidden(`Your role lacks the permission ${permission}`);
    return true;
  }
}
