import { Injectable } from '@nestjs/common';
import { type Readable, pipeline } from 'node:stream';
import { AppException } from 'src/core/errors/app.exception';
import { decodeCursor, encodeCursor } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { reportCsvEncoder } from './csv-export.util';
import type { ReportDefinitionResponse, ReportExportQuery, ReportQuery, ReportResponse } from './dto/report.dto';
import { REPORTS, type ReportSpec, findReport } from './report-definitions';
import type { ReportFilters } from './report-query.util';
import { type ReportRow, ReportsRepository } from './reports.repository';

const DEFAULT_REPORT_PAGE = 25;

function definitionOf(spec: ReportSpec): ReportDefinitionResponse {
  return {
    key: spec.key,
    name: spec.name,
    description: spec.description,
    columns: spec.columns.map((c) => ({ key: c.key, label: c.label, type: c.type })),
  };
}

/** Drops the keyset columns the query adds (`__sort`, `__id`). */
function publicRow(row: ReportRow): ReportRow {
  const { __sort: _s, __id: _i, ...rest } = row;
  return rest;
}

export interface CsvExport {
  readonly filename: string;
  readonly stream: Readable;
}

/**
 * `GET /reports`, `GET /reports/:key` (keyset pages) and `GET /reports/:key/export?format=csv`
 * (streamed from a database cursor through a CSV stringifier; see ReportsRepository).
 */
@Injectable()
export class ReportsService {
  constructor(private readonly reports: ReportsRepository) {}

  definitions(): { data: ReportDefinitionResponse[] } {
    return { data: REPORTS.map(definitionOf) };
  }

  async run(_ctx: TenantContext, key: string, query: ReportQuery): Promise<ReportResponse> {
    const spec = this.spec(key);
    const filters = this.filters(query);
    const limit = query.limit ?? DEFAULT_REPORT_PAGE;
    const after = query.cursor ? decodeCursor(query.cursor, 2).map(String) : null;
    const rows = await this.reports.page(spec, filters, {
      after: after ? { sort: after[0]!, id: after[1]! } : null,
      limit,
    });
    const hasMore = rows.length > limit;
    const pageRows = hasMore ? rows.slice(0, limit) : rows;
    const last = pageRows[pageRows.length - 1];
    return {
      key: spec.key,
      columns: definitionOf(spec).columns,
      rows: pageRows.map(publicRow),
      generatedAt: new Date().toISOString(),
      nextCursor: hasMore && last ? encodeCursor([String(last.__sort), String(last.__id)]) : null,
    };
  }

  async exportCsv(_ctx: TenantContext, key: string, query: ReportExportQuery): Promise<CsvExport> {
    const spec = this.spec(key);
    const filters = this.filters(query);
    const rows = await this.reports.stream(spec, filters);
    // Rows (objects, or arrays in column order from the PostgreSQL portal; the keyset columns come
    // last and are dropped by the encoder) → CSV frames. Errors end the response early (headers are
    // sent by then); every stage is destroyed.
    const stream = pipeline(rows, reportCsvEncoder(spec.columns.map((c) => c.key)), () => undefined);
    const day = new Date().toISOString().slice(0, 10);
    return { filename: `${spec.key}-${day}.csv`, stream };
  }

  private spec(key: string): ReportSpec {
    const spec = findReport(key);
    if (!spec) throw AppException.notFound('Report');
    return spec;
  }

  private filters(query: { from?: string; to?: string; channelId?: string; queueId?: string }): ReportFilters {
    const from = query.from ? new Date(query.from) : null;
    const to = query.to ? new Date(query.to) : null;
    if (from && to && from.getTime() >= to.getTime()) throw AppException.field('from', 'must be before to');
    return { from, to, channelId: query.channelId ?? null, queueId: query.queueId ?? null };
  }
}
