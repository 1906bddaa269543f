import { Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

/**
 * A lean handler for one hot route (issue 16: webhook acknowledgements). It runs after helmet, the
 * body parsers (raw body kept), the input guard, metrics and the request id — so every 413/415/400
 * of those stays as it is — and before Nest's router, request logging, guard chain, interceptors and
 * pipes. It answers only the ordinary case and returns `false` for anything else (unknown id, bad
 * signature, a body it is not sure about, an error): the request then goes on to the route's Nest
 * controller, which gives the documented answer for it. A fast route is an optimisation of a
 * controller route, never a route of its own: the controller (and its OpenAPI entry) stays.
 */
export interface FastRoute {
  readonly method: 'POST';
  /** Matches the path and returns the path parameter(s), or null. */
  match(path: string): Record<string, string> | null;
  /** true: answered; false: not handled, the controller takes the request. Must not throw. */
  handle(req: Request, res: Response, params: Record<string, string>): Promise<boolean>;
}

/** The fast routes modules registered (at module init); `fastRoutes(registry)` serves them. */
@Injectable()
export class FastRoutes {
  private readonly routes: FastRoute[] = [];

  register(route: FastRoute): void {
    this.routes.push(route);
  }

  /** Express middleware: the first fast route that matches and answers; else the normal path. */
  middleware(): (req: Request, res: Response, next: NextFunction) => void {
    return (req, res, next) => {
      if (this.routes.length === 0 || req.method !== 'POST') return next();
      for (const route of this.routes) {
        if (route.method !== req.method) continue;
        const params = route.match(req.path);
        if (!params) continue;
        route.handle(req, res, params).then(
          (answered) => {
            if (!answered) next();
          },
          () => next(),
        );
        return;
      }
      next();
    };
  }
}
