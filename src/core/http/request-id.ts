import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const REQUEST_ID = Symbol('requestId');
type WithId = IncomingMessage & { [REQUEST_ID]?: string };

/** The request's id: the caller's `x-request-id` when it is sane, else a new UUID. Stable per request. */
export function requestIdOf(request: IncomingMessage): string {
  const req = request as WithId;
  if (req[REQUEST_ID]) return req[REQUEST_ID];
  const given = request.headers['x-request-id'];
  const id = typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
  req[REQUEST_ID] = id;
  return id;
}
