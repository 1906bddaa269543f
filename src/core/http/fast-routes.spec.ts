import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type IncomingMessage, type Server, type ServerResponse, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestHandler } from 'express';
import { type FastRequest, type FastRoute, FastRoutes, parseJsonObject } from './fast-routes';

/** A route at /hot/:id answering `{ ok: id }` for id "ok", declining "no", failing "boom". */
function hotRoute(): FastRoute & { seen: FastRequest[] } {
  const seen: FastRequest[] = [];
  return {
    method: 'POST',
    template: '/hot/:id',
    seen,
    match: (path) => (path.startsWith('/hot/') ? { id: path.slice(5) } : null),
    answer: async (request) => {
      seen.push(request);
      if (request.params.id === 'boom') throw new Error('boom');
      return request.params.id === 'ok' ? { ok: request.params.id, got: request.body } : null;
    },
  };
}

const security: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Test-Security', 'on');
  res.removeHeader('X-Powered-By');
  next();
};

/**
 * The fast routes in front of a server whose own listener (the "normal path") reads the body itself
 * (as the body parsers do) and answers 299 with exactly what it read: a request the fast route did
 * not answer must arrive there with its body whole.
 */
function serve(routes: FastRoutes, securityHeaders: RequestHandler = security): Server {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => res.writeHead(299).end(Buffer.concat(chunks)));
  });
  routes.serveBefore(server, securityHeaders);
  return server;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(
  server: Server,
  path: string,
  body: string | Buffer | Buffer[],
  headers: Record<string, string> = { 'content-type': 'application/json' },
  method = 'POST',
): Promise<Answer> {
  const { port } = server.address() as AddressInfo;
  const parts = Array.isArray(body) ? body : [typeof body === 'string' ? Buffer.from(body) : body];
  const length = parts.reduce((n, p) => n + p.length, 0);
  return new Promise((resolve, reject) => {
    const req = request(
      { port, host: '127.0.0.1', path, method, headers: { 'content-length': String(length), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    // Several writes with pauses: the body arrives in separate chunks.
    void (async () => {
      for (const part of parts) {
        req.write(part);
        if (parts.length > 1) await new Promise((r) => setTimeout(r, 20));
      }
      req.end();
    })();
  });
}

describe('FastRoutes (lean handlers in front of everything, issue 16)', () => {
  const routes = new FastRoutes();
  const hot = hotRoute();
  routes.register(hot);
  let server: Server;
  beforeAll(async () => {
    server = serve(routes);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers the ordinary request with the security headers, a request id and JSON', async () => {
    const raw = '{"text":"héllo","n":1}';
    const res = await send(server, '/hot/ok', raw, { 'content-type': 'application/json; charset=utf-8' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ ok: 'ok', got: { text: 'héllo', n: 1 } });
    expect(res.headers['x-test-security']).toBe('on');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const seen = hot.seen.at(-1)!;
    expect(seen.rawBody.toString('utf8')).toBe(raw); // the exact bytes, for signatures
    expect(seen.params).toEqual({ id: 'ok' });
  });

  it('peeks at a body that arrives in several chunks and still answers', async () => {
    const text = 'x'.repeat(100_000);
    const raw = Buffer.from(JSON.stringify({ text }));
    const parts = [raw.subarray(0, 10), raw.subarray(10, 60_000), raw.subarray(60_000)];
    const res = await send(server, '/hot/ok', parts);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).got.text).toHaveLength(100_000);
  });

  it('hands a declined or failed request on with its body unread', async () => {
    const raw = '{"a":"declined"}';
    const declined = await send(server, '/hot/no', raw);
    expect(declined).toMatchObject({ status: 299, body: raw });
    const failed = await send(server, '/hot/boom', '{"a":1}');
    expect(failed).toMatchObject({ status: 299, body: '{"a":1}' });
    const big = Buffer.from(JSON.stringify({ text: 'y'.repeat(50_000) }));
    const chunked = await send(server, '/hot/no', [big.subarray(0, 7), big.subarray(7)]);
    expect(chunked.status).toBe(299);
    expect(chunked.body).toBe(big.toString('utf8'));
  });

  it('leaves everything that is not a plain JSON object request to the normal path, untouched', async () => {
    const before = hot.seen.length;
    const cases: [string, string | Buffer, Record<string, string>, string?][] = [
      ['/cold/ok', '{"a":1}', { 'content-type': 'application/json' }],
      ['/hot/ok?x=1', '{"a":1}', { 'content-type': 'application/json' }],
      ['/hot/ok', '{"a":1}', { 'content-type': 'text/plain' }],
      ['/hot/ok', '{"a":1}', { 'content-type': 'application/json; charset=latin1' }],
      ['/hot/ok', '{"a":1}', { 'content-type': 'application/json', 'content-encoding': 'gzip' }],
      ['/hot/ok', '[1,2]', { 'content-type': 'application/json' }],
      ['/hot/ok', '{"a":', { 'content-type': 'application/json' }],
      ['/hot/ok', '"text"', { 'content-type': 'application/json' }],
      [
        '/hot/ok',
        Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]),
        { 'content-type': 'application/json' },
      ],
      ['/hot/ok', '{"a":1}', { 'content-type': 'application/json' }, 'PUT'],
    ];
    for (const [path, body, headers, method] of cases) {
      const res = await send(server, path, body, headers, method);
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 299,
        body: Buffer.isBuffer(body) ? body.toString('utf8') : body,
      });
    }
    expect(hot.seen.length).toBe(before); // the route never saw any of them
  });

  it('is off when the security headers are not the same for every request', async () => {
    let n = 0;
    const changing: RequestHandler = (_req, res, next) => {
      res.setHeader('X-Nonce', String(n++));
      next();
    };
    const other = serve(routes, changing);
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      expect((await send(other, '/hot/ok', '{"a":1}')).status).toBe(299);
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });
});

describe('parseJsonObject', () => {
  it('parses what body-parser parses into an object, and nothing else', () => {
    expect(parseJsonObject(Buffer.from(' \n{"a":[1,{"b":null}]}\t'))).toEqual({ a: [1, { b: null }] });
    expect(parseJsonObject(Buffer.from('[]'))).toBeNull();
    expect(parseJsonObject(Buffer.from('null'))).toBeNull();
    expect(parseJsonObject(Buffer.from('{"a":1}x'))).toBeNull();
    expect(parseJsonObject(Buffer.from('\ufeff{"a":1}'))).toBeNull();
  });
});
