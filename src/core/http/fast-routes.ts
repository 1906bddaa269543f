import { Injectable, Logger } from '@nestjs/common';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Request, RequestHandler, Response } from 'express';
import { httpDuration } from 'src/core/metrics/metrics';
import { requestIdFrom } from './request-id';

/** What a fast route sees of a request: its path parameters, the raw body and its JSON object. */
export interface FastRequest {
  readonly params: Record<string, string>;
  readonly headers: IncomingHttpHeaders;
  /** The exact bytes received (signatures are checked on them). */
  readonly rawBody: Buffer;
  /** The body parsed as the application's JSON parser parses it (a plain JSON object). */
  readonly body: Record<string, unknown>;
}

/**
 * A lean handler for one hot route (issue 16: webhook acknowledgements). It runs first, before any
 * Express middleware, and answers only the ordinary case: a JSON object body of a plain request to
 * the route. Anything else — and anything the route declines (unknown id, bad signature, a body it is
 * not sure about) or fails on — goes on, untouched and with its body still unread, through helmet,
 * the body parsers, the input guard, metrics, the request id and Nest's router to the route's
 * controller, which gives the documented answer. A fast route is an optimisation of a controller
 * route, never a route of its own: the controller (and its OpenAPI entry) stays.
 */
export interface FastRoute {
  readonly method: 'POST';
  /** The route's template, as metrics label it (`/custom-channel/:id/inbound`). */
  readonly template: string;
  /** Matches the path and returns the path parameter(s), or null. */
  match(path: string): Record<string, string> | null;
  /** The JSON body of a 200 answer, or null: not handled, the controller takes the request. Must not throw. */
  answer(request: FastRequest): Promise<object | null>;
}

/** Bodies larger than this always take the normal path (a Custom Channel message is far smaller). */
export const FAST_BODY_LIMIT = 256 * 1024;
const JSON_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/** The normal path a request takes when no fast route answers it (the application's request listener). */
export type NormalPath = (req: IncomingMessage, res: ServerResponse) => void;

/** The fast routes modules registered (at module init); `serveBefore()` serves them. */
@Injectable()
export class FastRoutes {
  private readonly routes: FastRoute[] = [];
  private readonly logger = new Logger('FastRoutes');

  register(route: FastRoute): void {
    this.routes.push(route);
  }

  /**
   * Puts the fast routes in front of the HTTP server's request listeners (the Express application):
   * a request reaches Express — its router, every middleware, Nest — only when no fast route answers
   * it. Session 22 (issue 16): Express's own dispatch (prototype switch, router walk, Nest's adapter
   * layer) to reach a first middleware was ~8 % of the API process's CPU per ack.
   */
  serveBefore(server: Server, securityHeaders: RequestHandler): void {
    const listeners = server.listeners('request') as NormalPath[];
    const normal: NormalPath = (req, res) => {
      for (const listener of listeners) listener.call(server, req, res);
    };
    const handler = this.handler(securityHeaders);
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => handler(req, res, normal));
  }

  /**
   * The request handler: the first fast route that matches and answers; else `normal(req, res)`.
   * `securityHeaders` is the middleware that sets the security headers of every answer (helmet): the
   * headers it sets are recorded once and sent with every fast answer.
   */
  handler(securityHeaders: RequestHandler): (req: IncomingMessage, res: ServerResponse, normal: NormalPath) => void {
    const security = recordHeaders(securityHeaders);
    if (!security) this.logger.warn('Security headers are not static: fast routes are off');
    // One header list for every answer, filled in per answer: writeHead reads it synchronously and
    // keeps nothing of it (no other header is set on these responses before).
    const head = security ? [...security, 'content-type', 'application/json; charset=utf-8'] : [];
    const idAt = head.push('x-request-id', '') - 1;
    const lengthAt = head.push('content-length', '') - 1;
    // The latency series of each route's 200s (routes register at module init, after this runs).
    const durations = new Map<FastRoute, { observe(seconds: number): void }>();
    const durationOf = (route: FastRoute) => {
      let series = durations.get(route);
      if (!series) durations.set(route, (series = httpDuration.labels('POST', route.template, '200')));
      return series;
    };
    return (req, res, normal) => {
      if (!security || this.routes.length === 0 || req.method !== 'POST') return normal(req, res);
      const url = req.url ?? '';
      if (url.includes('?')) return normal(req, res);
      let route: FastRoute | undefined;
      let params: Record<string, string> | null = null;
      for (const candidate of this.routes) {
        params = candidate.method === req.method ? candidate.match(url) : null;
        if (params) {
          route = candidate;
          break;
        }
      }
      const length = plainJsonLength(req);
      if (!route || !params || length === null) return normal(req, res);
      const hot = route;
      const found = params;
      const started = performance.now();
      peekBody(req, length, (rawBody) => {
        const body = rawBody && parseJsonObject(rawBody);
        if (!rawBody || !body) return normal(req, res);
        hot.answer({ params: found, headers: req.headers, rawBody, body }).then(
          (answer) => {
            if (!answer) return normal(req, res);
            const json = JSON.stringify(answer);
            head[idAt] = requestIdFrom(req.headers);
            head[lengthAt] = String(Buffer.byteLength(json));
            res.writeHead(200, head);
            res.end(json);
            req.resume(); // the body was only peeked at: discard it
            durationOf(hot).observe((performance.now() - started) / 1000);
          },
          () => normal(req, res),
        );
      });
    };
  }
}

/**
 * The header name/value pairs `middleware` sets on a response, when it sets them synchronously and
 * the same for every request (helmet's defaults); null otherwise.
 */
function recordHeaders(middleware: RequestHandler): string[] | null {
  const record = (): string[] | null => {
    const pairs: string[] = [];
    let called = false;
    const res = {
      setHeader: (name: string, value: unknown) => {
        pairs.push(name, String(value));
        return res;
      },
      removeHeader: () => undefined,
    };
    middleware({ method: 'POST', url: '/', headers: {} } as Request, res as unknown as Response, () => (called = true));
    return called ? pairs : null;
  };
  const first = record();
  const second = record();
  return first && second && first.join('\n') === second.join('\n') ? first : null;
}

/**
 * The body length of a request the fast path may take: `content-length` set and at most
 * FAST_BODY_LIMIT, a JSON content type in UTF-8 (or no charset), no content or transfer encoding.
 * Null for anything else (the body parsers then decide, as for any request).
 */
function plainJsonLength(req: IncomingMessage): number | null {
  const headers = req.headers;
  if (headers['transfer-encoding'] !== undefined) return null;
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return null;
  const type = headers['content-type'];
  if (!type || !JSON_TYPE.test(type)) return null;
  const raw = headers['content-length'];
  if (!raw || !/^\d{1,7}$/.test(raw)) return null;
  const length = Number(raw);
  return length > 0 && length <= FAST_BODY_LIMIT ? length : null;
}

/**
 * Reads the whole body (`length` bytes) and puts it back at the front of the stream, unconsumed:
 * a request the fast route declines reaches the body parsers exactly as it arrived. `done(null)` when
 * the body is not exactly `length` bytes or the stream fails (the normal path then sees what is left).
 */
export function peekBody(stream: Readable, length: number, done: (raw: Buffer | null) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  const settle = (raw: Buffer | null): void => {
    if (settled) return;
    settled = true;
    stream.off('readable', onReadable);
    stream.off('end', onEnd);
    stream.off('error', onEnd);
    done(raw);
  };
  function onReadable(): void {
    let chunk: Buffer | null;
    while (size < length && (chunk = stream.read() as Buffer | null) !== null) {
      chunks.push(chunk);
      size += chunk.length;
    }
    if (size < length) return;
    const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
    // Before 'end' is emitted (it waits for an empty buffer), so nothing is lost to the next reader.
    stream.unshift(raw);
    settle(size === length ? raw : null);
  }
  function onEnd(): void {
    settle(null); // ended (or failed) short of `length` bytes: an aborted request
  }
  // `on`, not `once`: settle() removes all three, and `once` costs a wrapper per request.
  stream.on('readable', onReadable);
  stream.on('end', onEnd);
  stream.on('error', onEnd);
}

/**
 * The body as the application's JSON parser (body-parser, strict, UTF-8) would parse it, when it is
 * a JSON object; null for anything else (a BOM, an array, invalid JSON…), which the normal path handles.
 */
export function parseJsonObject(raw: Buffer): Record<string, unknown> | null {
  // body-parser's UTF-8 decoding drops a byte-order mark; JSON.parse would reject it: leave it to the parser.
  if (raw.length >= 3 && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf) return null;
  const text = raw.toString('utf8');
  let i = 0;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  if (text[i] !== '{') return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
