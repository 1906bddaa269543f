import { describe, expect, it } from '@jest/globals';
import type { Request, Response } from 'express';
import { type FastRoute, FastRoutes } from './fast-routes';

function route(answer: (params: Record<string, string>) => Promise<boolean>): FastRoute & { seen: string[] } {
  const seen: string[] = [];
  return {
    method: 'POST',
    seen,
    match: (path) => (path.startsWith('/hot/') ? { id: path.slice(5) } : null),
    handle: (_req, _res, params) => {
      seen.push(params.id!);
      return answer(params);
    },
  };
}

/** Runs the middleware once; resolves with whether the request went on to the normal path. */
function run(routes: FastRoutes, method: string, path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = { method, path } as Request;
    routes.middleware()(req, {} as Response, () => resolve(true));
    setTimeout(() => resolve(false), 50);
  });
}

describe('FastRoutes (lean handlers in front of the controllers, issue 16)', () => {
  it('answers with the route, or hands the request on when it declines or fails', async () => {
    const routes = new FastRoutes();
    const hot = route(async ({ id }) => {
      if (id === 'boom') throw new Error('boom');
      return id === 'ok';
    });
    routes.register(hot);
    expect(await run(routes, 'POST', '/hot/ok')).toBe(false); // answered: next() not called
    expect(await run(routes, 'POST', '/hot/no')).toBe(true);
    expect(await run(routes, 'POST', '/hot/boom')).toBe(true);
    expect(await run(routes, 'POST', '/cold/ok')).toBe(true);
    expect(await run(routes, 'GET', '/hot/ok')).toBe(true);
    expect(hot.seen).toEqual(['ok', 'no', 'boom']);
  });
});
