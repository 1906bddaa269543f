import type { NextFunction, Request, Response } from 'express';
import { httpDuration } from './metrics';

const ROUTE = Symbol('metricsRoute');

/** Names the route template of a request Nest's router does not see (a fast route, core/http/fast-routes). */
export function setMetricsRoute(req: Request, template: string): void {
  (req as Request & { [ROUTE]?: string })[ROUTE] = template;
}

/** Express middleware: request latency by route template (`/conversations/:id`), never by raw URL. */
export function httpMetricsMiddleware(req: Request, res: Response, next: NextFunction): void {
  const end = httpDuration.startTimer();
  res.on('finish', () => {
    const fast = (req as Request & { [ROUTE]?: string })[ROUTE];
    const route = (req.route as { path?: string } | undefined)?.path;
    // Unmatched URLs share one label so scanners cannot blow up the series count.
    end({
      method: req.method,
      route: fast ?? (typeof route === 'string' ? `${req.baseUrl}${route}` : 'unmatched'),
      status: String(res.statusCode),
    });
  });
  next();
}
