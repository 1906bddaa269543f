/**
 * PostgreSQL error classification and small SQL helpers, in one place. A failed query reaches us as
 * TypeORM's `QueryFailedError`, which keeps the driver's error (with `code` = SQLSTATE and
 * `constraint`) as `driverError`; a bare driver error carries the same fields itself.
 */

export const PgErrorCode = {
  UniqueViolation: '23505',
  ForeignKeyViolation: '23503',
  SerializationFailure: '40001',
  DeadlockDetected: '40P01',
} as const;

interface PgErrorFields {
  readonly code?: unknown;
  readonly constraint?: unknown;
}

function driverFields(error: unknown): PgErrorFields | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const driver = (error as { driverError?: unknown }).driverError;
  if (typeof driver === 'object' && driver !== null) return driver as PgErrorFields;
  return error as PgErrorFields;
}

/** The SQLSTATE of a failed query, if the error carries one. */
export function sqlState(error: unknown): string | undefined {
  const code = driverFields(error)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The constraint a failed query hit, if the error names one. */
export function constraintName(error: unknown): string | undefined {
  const constraint = driverFields(error)?.constraint;
  return typeof constraint === 'string' ? constraint : undefined;
}

/** The constraint a unique violation (23505) hit ('' when unnamed), or null for any other error. */
export function uniqueViolation(error: unknown): string | null {
  return sqlState(error) === PgErrorCode.UniqueViolation ? (constraintName(error) ?? '') : null;
}

/** The constraint a foreign-key violation (23503) hit ('' when unnamed), or null for any other error. */
export function foreignKeyViolation(error: unknown): string | null {
  return sqlState(error) === PgErrorCode.ForeignKeyViolation ? (constraintName(error) ?? '') : null;
}

/** A unique violation (23505), whatever constraint. */
export function isUniqueViolation(error: unknown): boolean {
  return uniqueViolation(error) !== null;
}

/** A serialization failure (40001) or deadlock (40P01): the whole transaction may run again. */
export function isRetryable(error: unknown): boolean {
  const code = sqlState(error);
  return code === PgErrorCode.SerializationFailure || code === PgErrorCode.DeadlockDetected;
}

/** Node's socket errors when the database cannot be reached or drops the connection. */
const UNREACHABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);

/** node-postgres' own messages for a connection that ended or could not be made in time (no code). */
const UNREACHABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Client was closed',
];

/**
 * The database is unreachable or going away, not the request's fault: SQLSTATE class 08
 * (connection exception), 57P01–57P03 (admin / crash shutdown, cannot connect now), 53300 (too many
 * connections), a refused or reset socket, node-postgres' "Connection terminated". The API answers
 * 503 with Retry-After for these: a platform retries the webhook, a client tries again shortly.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = sqlState(error);
  if (code && (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300'))
    return true;
  if (code && UNREACHABLE_SOCKET_CODES.has(code)) return true;
  const driver = typeof error === 'object' && error !== null ? (error as { driverError?: unknown }).driverError : undefined;
  const message = [error, driver]
    .map((e) => (e instanceof Error ? e.message : ''))
    .find((m) => UNREACHABLE_MESSAGES.some((known) => m.includes(known)));
  return message !== undefined;
}

/** `%`, `_` and `\` taken literally inside a LIKE/ILIKE pattern (the default escape character `\`). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `%text%` for (I)LIKE with the text's own `%`, `_` and `\` taken literally. */
export function likePattern(text: string): string {
  return `%${escapeLike(text)}%`;
}
