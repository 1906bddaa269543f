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

/** A retry row a sweep picked up again. */
export interface DueRow {
  readonly id: string;
  readonly workspaceId: string;
  readonly attempts: number;
}

/** Where a table keeps its retry state (identifiers written in code, never from input). */
export interface RetryRows {
  readonly table: string;
  /** The rows that wait for an attempt, e.g. `status = 'RECEIVED'`. */
  readonly waiting: string;
  /** When a never-tried row became due (its `next_attempt_at` is null). */
  readonly since: string;
  readonly attempts: string;
}

/**
 * SYSTEM (all workspaces): the sweep of a table of rows retried until done (inbound events, outbound
 * messages). Takes waiting rows due for at least `olderThanMs` and not taken by a sweep in that time
 * either, marks them taken (`updated_at`), and returns them; SKIP LOCKED lets several workers sweep.
 */
export async function takeDueRows(
  manager: RawQueryable,
  rows: RetryRows,
  olderThanMs: number,
  limit: number,
): Promise<DueRow[]> {
  const due = `coalesce(next_attempt_at, ${rows.since})`;
  const taken = await queryRows<{ id: string; workspace_id: string; attempts: number }>(
    manager,
    `WITH due AS (
       UPDATE ${rows.table} SET updated_at = now()
        WHERE id IN (
          SELECT id FROM ${rows.table}
           WHERE ${rows.waiting}
             AND ${due} <= now() - make_interval(secs => $1::float8 / 1000)
             AND updated_at <= now() - make_interval(secs => $1::float8 / 1000)
           ORDER BY ${due}
           LIMIT $2
           FOR UPDATE SKIP LOCKED)
        RETURNING id, workspace_id, ${rows.attempts} AS attempts)
     SELECT id, workspace_id, attempts FROM due`,
    [olderThanMs, limit],
  );
  return taken.map((r) => ({ id: r.id, workspaceId: r.workspace_id, attempts: r.attempts }));
}
