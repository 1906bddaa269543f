import type { NextFunction, Request, Response } from 'express';
import { httpDuration } from './metrics';

/**
 * Express middleware: request latency by route template (`/conversations/:id`), never by raw URL.
 * Fast routes (core/http/fast-routes) answer before it and record their own template.
 */
export function httpMetricsMiddleware(req: Request, res: Response, next: NextFunction): void {
  const end = httpDuration.startTimer();
  res.on('finish', () => {
    const route = (req.route as { path?: string } | undefined)?.path;
    // Unmatched URLs share one label so scanners cannot blow up the series count.
    end({
      method: req.method,
      route: typeof route === 'string' ? `${req.baseUrl}${route}` : 'unmatched',
      status: String(res.statusCode),
    });
  });
  next();
}
