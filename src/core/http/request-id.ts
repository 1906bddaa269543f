import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

const REQUEST_ID = Symbol('requestId');
type WithId = IncomingMessage & { [REQUEST_ID]?: string };

/** The request's id: the caller's `x-request-id` when it is sane, else a new UUID. Stable per request. */
export function requestIdOf(request: IncomingMessage): string {
  const req = request as WithId;
  if (req[REQUEST_ID]) return req[REQUEST_ID];
  const id = requestIdFrom(request.headers);
  req[REQUEST_ID] = id;
  return id;
}

/** A request id for these headers (`requestIdOf` without remembering it: for an answer given at once). */
export function requestIdFrom(headers: IncomingHttpHeaders): string {
  const given = headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
}
