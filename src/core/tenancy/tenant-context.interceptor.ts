import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { Observable } from 'rxjs';
import type { AuthRequest } from 'src/core/auth/auth-request';
import { requestIdOf } from 'src/core/http/request-id';
import { runInTenantContext } from './tenant-context';

/**
 * Runs the handler (and its pipes) inside the tenant context the guards built, so repositories find
 * the workspace without being told. Done here rather than in a middleware because Express body
 * parsing can drop AsyncLocalStorage context between a middleware and the handler.
 */
@Injectable()
export class TenantContextInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<AuthRequest>();
    return new Observable((subscriber) =>
      runInTenantContext(request.tenant ?? null, requestIdOf(request), () => next.handle().subscribe(subscriber)),
    );
  }
}
