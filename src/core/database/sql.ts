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
