import { Injectable } from '@nestjs/common';
import { parseJsonObject } from 'src/core/csv/csv-format';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { ErrorCode } from 'src/core/errors/error-codes';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { renderItemForAgent } from './agent-text.util';
import { CatalogImportsRepository } from './catalog-imports.repository';
import { CatalogItemsRepository, type ImportRow } from './catalog-items.repository';
import { CatalogueSystemRepository } from './catalogue-system.repository';
import {
  type StoredCsv,
  detectCatalogueDelimiter,
  readStoredRecords,
  readStoredSample,
  resolveHeaders,
} from './csv/csv-reader.util';
import {
  IMPORT_FIELDS,
  type ImportField,
  type ImportMapping,
  MULTI_COLUMN_FIELDS,
  guessMapping,
  isImportField,
} from './csv/header-guess.util';
import { type ColumnPlan, buildImportRow, matchKeys, planColumns } from './csv/import-rows.util';
import type { ImportCommitResponse, ImportPreviewResponse, ImportPreviewRow, ImportRowError } from './dto/import.dto';
import { formatPriceDisplay } from './price.util';

/** The import's limits (docs/catalogue.md, docs/decisions.md). */
export const IMPORT_LIMITS = {
  /** Upload size; larger → 413 (multer stops reading at the limit). */
  maxFileBytes: 50 * 1024 * 1024,
  /** Products per file; more → 413. */
  maxRows: 100_000,
  maxColumns: 200,
  /** A preview session lives this long (renewed by each re-preview); commit after it → 404. */
  sessionTtlMs: 60 * 60 * 1000,
  previewSize: 5,
  /** Rows per set-based write (one statement, one short transaction each). */
  batchSize: 1_000,
  /** Row errors listed in a commit answer (all are counted). */
  maxReportedErrors: 1_000,
  /** Row problems listed among a preview's warnings (all are counted). */
  maxPreviewWarnings: 20,
} as const;

/** The template's header row: one column per importable field, in their order. */
export const IMPORT_TEMPLATE_HEADERS: readonly string[] = IMPORT_FIELDS;

/** What one pass over the file found with a given mapping. */
interface Analysis {
  readonly totalRows: number;
  readonly errorCount: number;
  readonly rowWarnings: string[];
  readonly preview: ImportPreviewRow[];
  readonly raggedRows: number;
}

/** The uploaded file as GzipUploadStorage leaves it. */
export interface UploadedCsv extends StoredCsv {
  readonly originalname?: string;
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}

/** Sorts row errors by row and keeps the first `max`. */
function keepFirst(errors: ImportRowError[], max: number): void {
  errors.sort((a, b) => a.row - b.row);
  if (errors.length > max) errors.length = max;
}

/**
 * CSV import (DESIGN §12): upload → preview (nothing saved) → optional re-mapping → commit. The file
 * and the mapping live in the database between the steps, so any instance can commit.
 */
@Injectable()
export class CatalogImportService {
  constructor(
    private readonly imports: CatalogImportsRepository,
    private readonly items: CatalogItemsRepository,
    private readonly system: CatalogueSystemRepository,
    private readonly tx: TransactionHost,
  ) {}

  template(): string {
    return `${IMPORT_TEMPLATE_HEADERS.join(',')}\r\n`;
  }

  async preview(
    ctx: TenantContext,
    file: UploadedCsv | undefined,
    mappingJson: string | undefined,
  ): Promise<ImportPreviewResponse> {
    if (!file) throw AppException.field('file', 'is required (multipart field "file")');
    if (file.size > IMPORT_LIMITS.maxFileBytes) throw this.tooLarge();
    const delimiter = detectCatalogueDelimiter(await readStoredSample(file.gzip));
    const header = await this.readHeader(file.gzip, delimiter);
    const { headers, renamed } = resolveHeaders(header.cells);
    if (headers.length > IMPORT_LIMITS.maxColumns)
      throw AppException.field('file', `has more than ${IMPORT_LIMITS.maxColumns} columns`);
    const override = mappingJson === undefined || mappingJson.trim() === '' ? {} : this.parseMappingJson(mappingJson);
    const mapping = this.applyMapping(headers, guessMapping(headers), override);
    const analysis = await this.analyse(file.gzip, delimiter, headers, mapping);
    if (analysis.totalRows === 0) throw AppException.field('file', 'has a header but no products');
    const expiresAt = new Date(Date.now() + IMPORT_LIMITS.sessionTtlMs);
    const session = await this.tx.run(async () => {
      const inserted = await this.imports.insert({
        createdBy: ctx.actor.userId,
        filename: file.originalname ?? null,
        delimiter,
        headers,
        mapping,
        totalRows: analysis.totalRows,
        status: 'READY',
        expiresAt,
      });
      await this.imports.insertContent(inserted.id, file.gzip);
      return inserted;
    });
    return this.previewResponse(session.id, headers, mapping, delimiter, analysis, expiresAt, renamed);
  }

  /** Re-renders the preview with a changed mapping (kept for the commit) and renews the session. */
  async repreview(
    _ctx: TenantContext,
    importId: string,
    override: Record<string, unknown>,
  ): Promise<ImportPreviewResponse> {
    const session = await this.imports.findLive(importId);
    if (!session) throw AppException.notFound('Import');
    if (session.status !== 'READY') throw this.notReady(session.status);
    const content = await this.imports.readContent(session.id);
    if (content.length === 0) throw this.notReady(session.status);
    const mapping = this.applyMapping(session.headers, session.mapping, override);
    const analysis = await this.analyse(content, session.delimiter, session.headers, mapping);
    const expiresAt = new Date(Date.now() + IMPORT_LIMITS.sessionTtlMs);
    await this.imports.updateById(session.id, { mapping, expiresAt });
    return this.previewResponse(session.id, session.headers, mapping, session.delimiter, analysis, expiresAt, []);
  }

  /**
   * Saves the good rows in batches (one set-based statement and one short transaction per
   * 1,000 rows, so other requests are not held up behind a 100,000-row import), reports the others.
   * The search index takes the batches' entries in bulk and is merged once at the end (also after a
   * failure), so the answer comes back when every saved row is committed and searchable.
   */
  async commit(
    _ctx: TenantContext,
    importId: string,
    override: Record<string, unknown> | undefined,
  ): Promise<ImportCommitResponse> {
    const claimed = await this.imports.claimForCommit(importId, new Date(Date.now() + IMPORT_LIMITS.sessionTtlMs));
    if (!claimed) {
      const session = await this.imports.findLive(importId);
      if (!session) throw AppException.notFound('Import');
      throw this.notReady(session.status);
    }
    try {
      const mapping = this.applyMapping(claimed.headers, claimed.mapping, override ?? {});
      this.assertMatchable(mapping);
      const content = await this.imports.readContent(claimed.id);
      const result = await this.write(content, claimed.delimiter, claimed.headers, mapping);
      const response: ImportCommitResponse = { importId: claimed.id, ...result };
      await this.imports.finishCommit(claimed.id, mapping, { ...response, errors: response.errors.slice(0, 100) });
      return response;
    } catch (error) {
      await this.imports.releaseCommit(claimed.id);
      throw error;
    }
  }

  private async write(
    stored: readonly Buffer[],
    delimiter: string,
    headers: readonly string[],
    mapping: ImportMapping,
  ): Promise<Omit<ImportCommitResponse, 'importId'>> {
    const plan = planColumns(headers, mapping);
    const errors: ImportRowError[] = [];
    let errorCount = 0;
    let created = 0;
    let updated = 0;
    let totalRows = 0;
    const report = (row: number, message: string): void => {
      errorCount++;
      // The first rows by number are listed, whichever check found them (a batch's rows without a
      // name are reported when it is saved, after the cell errors of its own rows were read).
      errors.push({ row, message });
      if (errors.length >= 2 * IMPORT_LIMITS.maxReportedErrors) keepFirst(errors, IMPORT_LIMITS.maxReportedErrors);
    };
    let batch: ImportRow[] = [];
    let keys = new Set<string>();
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      const rows = batch;
      batch = [];
      keys = new Set();
      const outcome = await this.tx.run(async () => {
        await this.system.deferSearchIndexing();
        return this.items.importBatch(rows);
      });
      created += outcome.created;
      updated += outcome.updated;
      for (const row of outcome.namelessRows) report(row, 'matches no product and has no name to create one with');
    };
    try {
      for await (const record of this.dataRecords(stored, delimiter)) {
        totalRows++;
        const built = buildImportRow(record.cells, record.row, plan);
        if (!built.ok) {
          report(built.row, built.error);
          continue;
        }
        const rowKeys = matchKeys(built.row);
        if (batch.length >= IMPORT_LIMITS.batchSize || rowKeys.some((key) => keys.has(key))) await flush();
        batch.push(built.row);
        for (const key of rowKeys) keys.add(key);
      }
      await flush();
    } catch (error) {
      // The rows saved before the failure stay saved: they are merged too (a merge error would hide the cause).
      await this.system.mergeSearchIndexPendingList().catch(() => undefined);
      throw error;
    }
    await this.system.mergeSearchIndexPendingList();
    keepFirst(errors, IMPORT_LIMITS.maxReportedErrors);
    return { totalRows, created, updated, errorCount, errors };
  }

  private async analyse(
    stored: readonly Buffer[],
    delimiter: string,
    headers: readonly string[],
    mapping: ImportMapping,
  ): Promise<Analysis> {
    const plan: ColumnPlan = planColumns(headers, mapping);
    const preview: ImportPreviewRow[] = [];
    const rowWarnings: string[] = [];
    let totalRows = 0;
    let errorCount = 0;
    let raggedRows = 0;
    for await (const record of this.dataRecords(stored, delimiter)) {
      totalRows++;
      if (totalRows > IMPORT_LIMITS.maxRows) throw this.tooLarge();
      if (record.cells.length !== headers.length) raggedRows++;
      const built = buildImportRow(record.cells, record.row, plan);
      if (!built.ok) {
        errorCount++;
        if (rowWarnings.length < IMPORT_LIMITS.maxPreviewWarnings) rowWarnings.push(`Row ${built.row}: ${built.error}`);
        continue;
      }
      if (preview.length < IMPORT_LIMITS.previewSize) preview.push(this.previewRow(built.row));
    }
    return { totalRows, errorCount, rowWarnings, preview, raggedRows };
  }

  private previewRow(row: ImportRow): ImportPreviewRow {
    const item = {
      externalId: row.external_id,
      name: row.name,
      price: row.price,
      priceDisplay: formatPriceDisplay(row.price),
      currency: row.currency,
      description: row.description,
      sku: row.sku,
      category: row.category,
      stock: row.stock,
      images: row.images ?? [],
      keywords: row.keywords ?? [],
    };
    return { row: row.ord, item, agentText: renderItemForAgent(item) };
  }

  private previewResponse(
    importId: string,
    headers: string[],
    mapping: ImportMapping,
    delimiter: string,
    analysis: Analysis,
    expiresAt: Date,
    renamed: string[],
  ): ImportPreviewResponse {
    const mapped = new Set(Object.values(mapping).filter((field): field is ImportField => field !== null));
    const warnings: string[] = [...renamed];
    if (!mapped.has('name'))
      warnings.push('No column is mapped to name: rows that match no existing product cannot be created.');
    if (!mapped.has('id') && !mapped.has('sku') && !mapped.has('name')) {
      warnings.push(
        'No column is mapped to id, sku or name: nothing can be matched or created. Change the mapping before committing.',
      );
    }
    const ignored = headers.filter((header) => mapping[header] === null);
    if (ignored.length > 0) warnings.push(`Not imported: ${ignored.map((h) => `"${h}"`).join(', ')}.`);
    if (analysis.raggedRows > 0) {
      warnings.push(
        `${plural(analysis.raggedRows, 'row')} ${analysis.raggedRows === 1 ? 'has' : 'have'} a different number of cells than the header.`,
      );
    }
    if (analysis.errorCount > 0) {
      warnings.push(`${plural(analysis.errorCount, 'row')} cannot be imported with this mapping:`);
      warnings.push(...analysis.rowWarnings);
      if (analysis.errorCount > analysis.rowWarnings.length)
        warnings.push(`…and ${plural(analysis.errorCount - analysis.rowWarnings.length, 'more row')}.`);
    }
    return {
      importId,
      headers,
      mapping,
      preview: analysis.preview,
      totalRows: analysis.totalRows,
      errorCount: analysis.errorCount,
      warnings,
      delimiter,
      expiresAt: expiresAt.toISOString(),
    };
  }

  /** The records below the header (the header is the first non-blank record). */
  private async *dataRecords(
    stored: readonly Buffer[],
    delimiter: string,
  ): AsyncGenerator<{ row: number; cells: string[] }> {
    let headerSeen = false;
    for await (const record of readStoredRecords(stored, delimiter)) {
      if (!headerSeen) {
        headerSeen = true;
        continue;
      }
      yield record;
    }
  }

  private async readHeader(stored: readonly Buffer[], delimiter: string): Promise<{ row: number; cells: string[] }> {
    for await (const record of readStoredRecords(stored, delimiter)) return record;
    throw AppException.field('file', 'is empty');
  }

  private parseMappingJson(json: string): Record<string, unknown> {
    const parsed = parseJsonObject(json);
    if (!parsed) throw AppException.field('mapping', 'must be a JSON object {header: field | null}');
    return parsed;
  }

  /**
   * Applies a user's `{header: field | null}` on top of the current mapping. Headers left out keep
   * their field, except that a field given to a column here is taken from the column that had it.
   * Unknown headers or fields, or one field (other than images/keywords) on two columns → 400.
   */
  applyMapping(headers: readonly string[], current: ImportMapping, override: Record<string, unknown>): ImportMapping {
    const next: ImportMapping = {};
    for (const header of headers) next[header] = current[header] ?? null;
    const assigned = new Set<ImportField>();
    for (const [header, value] of Object.entries(override)) {
      if (!headers.includes(header))
        throw AppException.field(`mapping.${header}`, `is not a column of the file (columns: ${headers.join(', ')})`);
      const field = typeof value === 'string' ? value.trim().toLowerCase() : value;
      if (field !== null && !isImportField(field))
        throw AppException.field(`mapping.${header}`, `must be null or one of: ${IMPORT_FIELDS.join(', ')}`);
      next[header] = field;
      if (field !== null) assigned.add(field);
    }
    for (const header of headers) {
      const field = next[header];
      if (field && assigned.has(field) && !MULTI_COLUMN_FIELDS.includes(field) && !(header in override))
        next[header] = null;
    }
    const owners = new Map<ImportField, string[]>();
    for (const header of headers) {
      const field = next[header];
      if (field) owners.set(field, [...(owners.get(field) ?? []), header]);
    }
    for (const [field, columns] of owners) {
      if (columns.length > 1 && !MULTI_COLUMN_FIELDS.includes(field)) {
        throw AppException.field(
          'mapping',
          `maps ${columns.map((c) => `"${c}"`).join(' and ')} to ${field}: only images and keywords may take several columns`,
        );
      }
    }
    return next;
  }

  private assertMatchable(mapping: ImportMapping): void {
    const fields = new Set(Object.values(mapping));
    if (!fields.has('id') && !fields.has('sku') && !fields.has('name')) {
      throw AppException.field(
        'mapping',
        'maps no column to id, sku or name: products could not be matched or created',
      );
    }
  }

  private tooLarge(): AppException {
    return AppException.tooLarge(
      `The file is over the import limits (${IMPORT_LIMITS.maxFileBytes / 1024 / 1024} MB, ${IMPORT_LIMITS.maxRows.toLocaleString('en-US')} products): split it into several files`,
    );
  }

  private notReady(status: string): AppException {
    return new AppException(
      ErrorCode.Conflict,
      status === 'COMMITTED'
        ? 'This import was already committed; upload the file again to import it again'
        : 'This import is being committed',
    );
  }
}
