/** What `queryRows` needs of a TypeORM manager (a structural type: only repositories hold managers). */
export interface RawQueryable {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

/**
 * Rows of a raw statement. TypeORM answers UPDATE/DELETE with `[rows, rowCount]` and everything else
 * with `rows`; rows are objects, never arrays, so the two shapes cannot be confused.
 */
export async function queryRows<T>(manager: RawQueryable, sql: string, params: unknown[]): Promise<T[]> {
  const result: unknown = await manager.query(sql, params);
  if (!Array.isArray(result)) return [];
  if (result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}

/** `%`, `_` and `\` taken literally inside an ILIKE pattern. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The PostgreSQL SQLSTATE of a failed query (TypeORM's QueryFailedError keeps the driver error), if any. */
export function pgErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const driverError = (error as { driverError?: { code?: unknown } }).driverError;
  const code = driverError?.code ?? (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

export const UNIQUE_VIOLATION = '23505';
export const DEADLOCK_DETECTED = '40P01';
export const SERIALIZATION_FAILURE = '40001';
