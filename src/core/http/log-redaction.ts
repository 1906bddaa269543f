/** Header names whose value is a credential: every receiver's signature and secret headers included. */
const SECRET_HEADER = /authorization|cookie|signature|secret|token|api-?key|x-.*-key$/i;
/** Query parameters whose value is a credential (Meta's `hub.verify_token`, `hub.challenge` …). */
const SECRET_QUERY = /^hub\.|token|secret|signature|password|key|code$/i;
export const REDACTED = '[Redacted]';

/** A header map with every credential-carrying value replaced. */
export function redactHeaders(headers: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!headers) return headers;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = SECRET_HEADER.test(name) ? REDACTED : value;
  return out;
}

/** A URL path with its query string's credential values replaced. */
export function redactUrl(url: string | undefined): string | undefined {
  if (!url) return url;
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq < 0 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        /* keep the raw name */
      }
      return eq >= 0 && SECRET_QUERY.test(name) ? `${rawName}=${REDACTED}` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

function redactQuery(query: unknown): unknown {
  if (typeof query !== 'object' || query === null) return query;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(query)) out[k] = SECRET_QUERY.test(k) ? REDACTED : v;
  return out;
}

/** pino-http's request serializer (it hands over pino's serialized request), minus credentials. */
export function redactedRequest(serialized: Record<string, unknown>): Record<string, unknown> {
  return {
    ...serialized,
    url: redactUrl(serialized.url as string | undefined),
    query: redactQuery(serialized.query),
    headers: redactHeaders(serialized.headers as Record<string, unknown> | undefined),
  };
}

export function redactedResponse(serialized: Record<string, unknown>): Record<string, unknown> {
  return { ...serialized, headers: redactHeaders(serialized.headers as Record<string, unknown> | undefined) };
}

/**
 * Errors (as pino serialized them) without SQL parameter values: TypeORM's QueryFailedError carries
 * `parameters` (a new member's password hash, a new token's hash) and PostgreSQL's `detail` repeats
 * key values. A database error is logged by SQLSTATE, table, constraint and column.
 */
export function redactedError(serialized: unknown): unknown {
  if (typeof serialized !== 'object' || serialized === null) return serialized;
  const s = serialized as Record<string, unknown>;
  const driver = s.driverError as Record<string, unknown> | undefined;
  if (!('parameters' in s) && !driver && !('detail' in s)) return s;
  const source = driver ?? s;
  return {
    type: s.type,
    message: s.message,
    stack: s.stack,
    sqlstate: source.code,
    table: source.table,
    constraint: source.constraint,
    column: source.column,
  };
}
