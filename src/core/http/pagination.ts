import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { AppException } from 'src/core/errors/app.exception';

export class CursorPaginationQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 25 })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value,
  )
  @IsInt()
  @Min(1)
  @Max(100)
  readonly limit?: number;

  @ApiPropertyOptional({ description: 'Opaque cursor from a previous page (`nextCursor`)' })
  @IsOptional()
  @IsString()
  readonly cursor?: string;
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export const DEFAULT_PAGE_SIZE = 25;

type CursorValue = string | number;

export function encodeCursor(values: CursorValue[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

export function decodeCursor(cursor: string, arity: number): CursorValue[] {
  try {
    const values: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(values) &&
      values.length === arity &&
      values.every((v) => typeof v === 'string' || typeof v === 'number')
    ) {
      return values as CursorValue[];
    }
  } catch {
    // fall through
  }
  throw AppException.field('cursor', 'is not a valid cursor');
}

export interface KeysetOptions<T> {
  /** SQL expression of the sort key, e.g. `c.created_at`. */
  readonly sortExpression: string;
  /** The sort key's value on a loaded row, as written in the cursor. */
  readonly sortValue: (row: T) => CursorValue;
  /** SQL expression of the unique tie-breaker, e.g. `c.id`. */
  readonly idExpression: string;
  readonly direction?: 'ASC' | 'DESC';
  /** Cast of the sort parameter, e.g. `timestamptz`. */
  readonly sortCast?: string;
}

/**
 * Keyset paging: `(sort, id) < (:sort, :id)` in the sort direction, LIMIT n+1. Stable under inserts
 * and never an OFFSET scan. Timestamps are stored at millisecond precision so a cursor round-trips.
 */
export async function findKeysetPage<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  query: CursorPaginationQuery,
  options: KeysetOptions<T>,
): Promise<Page<T>> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const direction = options.direction ?? 'DESC';
  const cast = options.sortCast ? `::${options.sortCast}` : '';
  if (query.cursor) {
    const [sort, id] = decodeCursor(query.cursor, 2);
    const op = direction === 'DESC' ? '<' : '>';
    qb.andWhere(`(${options.sortExpression}, ${options.idExpression}) ${op} (:keysetSort${cast}, :keysetId::uuid)`, {
      keysetSort: sort,
      keysetId: id,
    });
  }
  qb.orderBy(options.sortExpression, direction)
    .addOrderBy(options.idExpression, direction)
    .limit(limit + 1);
  const rows = await qb.getMany();
  const hasMore = rows.length > limit;
  const data = hasMore ? rows.slice(0, limit) : rows;
  const last = data[data.length - 1];
  return {
    data,
    nextCursor: hasMore && last ? encodeCursor([options.sortValue(last), String(last.id)]) : null,
  };
}

/** Keyset on `created_at DESC, id DESC`: the default order of every list. */
export function newestFirst<T extends ObjectLiteral & { createdAt: Date; id: string }>(
  alias: string,
): KeysetOptions<T> {
  return {
    sortExpression: `${alias}.created_at`,
    idExpression: `${alias}.id`,
    sortValue: (row) => row.createdAt.toISOString(),
    sortCast: 'timestamptz',
  };
}

/**
 * The same order and cursor over a small known set of rows (ids from a bounded index probe): a
 * timestamp sort key wrapped in an expression that is not an index's, so the planner fetches those
 * rows and sorts them instead of walking the whole index in order looking for them.
 */
export function sortedAfterFetch<T>(options: KeysetOptions<T>): KeysetOptions<T> {
  return { ...options, sortExpression: `(${options.sortExpression} + interval '0 s')` };
}

export function mapPage<T, R>(page: Page<T>, map: (row: T) => R): Page<R> {
  return { data: page.data.map(map), nextCursor: page.nextCursor };
}
