import type { ReportSpec } from './report-definitions';
import { SqlParams } from './sql-params.util';

export interface ReportFilters {
  readonly from: Date | null;
  readonly to: Date | null;
  readonly channelId: string | null;
  readonly queueId: string | null;
}

export interface ReportPageRequest {
  readonly after: { sort: string; id: string } | null;
  readonly limit: number;
}

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const isoText = (expr: string): string => `to_char((${expr}) AT TIME ZONE 'UTC', ${ISO})`;

/**
 * The one statement of a report for a workspace and filters: paged (`page`: keyset after a row,
 * LIMIT n+1) for `GET /reports/:key`, unpaged for the export. Every value is a parameter; the SQL
 * text comes only from the report definitions. Timestamps are formatted in SQL (ISO 8601 UTC) so
 * JSON and CSV show the same text and rows need no per-row parsing.
 */
export function buildReportQuery(
  spec: ReportSpec,
  workspaceId: string,
  filters: ReportFilters,
  page: ReportPageRequest | null,
  marker = '',
): { sql: string; params: unknown[] } {
  const p = new SqlParams();
  const ws = p.add(workspaceId);
  let convFilter = '';
  let fromParam = '';
  let toParam = '';
  if (spec.windowInColumns) {
    fromParam = `${p.add(filters.from ?? '-infinity')}::timestamptz`;
    toParam = `${p.add(filters.to ?? 'infinity')}::timestamptz`;
    if (filters.channelId) convFilter += ` AND c.channel_id = ${p.add(filters.channelId)}::uuid`;
    if (filters.queueId) convFilter += ` AND c.queue_id = ${p.add(filters.queueId)}::uuid`;
  }
  const select = spec.columns
    .map((c) => {
      const expr = c.sql
        .replaceAll('$FROM', fromParam)
        .replaceAll('$TO', toParam)
        .replaceAll('$CONV_FILTER', convFilter);
      return `${c.type === 'timestamp' ? isoText(expr) : expr} AS "${c.key}"`;
    })
    .join(',\n       ');
  const where = [`${spec.alias}.workspace_id = ${ws}`];
  if (spec.where) where.push(spec.where);
  if (spec.time && filters.from) where.push(`${spec.time} >= ${p.add(filters.from)}::timestamptz`);
  if (spec.time && filters.to) where.push(`${spec.time} < ${p.add(filters.to)}::timestamptz`);
  if (spec.channel && filters.channelId)
    where.push(spec.channel.replace('$VALUE', `${p.add(filters.channelId)}::uuid`));
  if (spec.queue && filters.queueId) where.push(spec.queue.replace('$VALUE', `${p.add(filters.queueId)}::uuid`));
  if (page?.after) {
    where.push(
      `(${spec.sortTime}, ${spec.sortId}) < (${p.add(page.after.sort)}::timestamptz, ${p.add(page.after.id)}::uuid)`,
    );
  }
  const sql = `${marker ? `/* ${marker} */ ` : ''}SELECT ${select},
       ${isoText(spec.sortTime)} AS "__sort", ${spec.sortId}::text AS "__id"
  FROM ${spec.from}
 WHERE ${where.join('\n   AND ')}
 ORDER BY ${spec.sortTime} DESC, ${spec.sortId} DESC${page ? `\n LIMIT ${p.add(page.limit + 1)}` : ''}`;
  return { sql, params: p.values };
}
