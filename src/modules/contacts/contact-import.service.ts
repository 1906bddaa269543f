import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { CompaniesRepository } from './companies.repository';
import type { ContactFieldEntity } from './contact-field.entity';
import { ContactFieldsService } from './contact-fields.service';
import { phoneDigits } from './contact-values.util';
import { type ImportedContactValues, ContactsRepository } from './contacts.repository';
import { IMPORT_BATCH_SIZE, IMPORT_MAX_REPORTED_ERRORS } from './contacts.constants';
import { detectDelimiter } from 'src/core/csv/csv-format';
import { readCsvChunks, stripBom } from 'src/core/csv/csv-reader';
import {
  type ColumnMapping,
  type ImportMappingOverride,
  type ImportRowValues,
  buildColumnMapping,
  combineImportRows,
  missingRequiredFields,
  parseImportRow,
  parseMappingJson,
} from './csv-import.util';
import type { ImportContactsDto, ImportContactsResponse, ImportRowError } from './dto/import.dto';

/** The uploaded file as multer hands it over (memory storage). */
export interface UploadedCsv {
  readonly buffer: Buffer;
}

interface PendingRow {
  readonly row: number;
  readonly values: ImportRowValues;
}

function matchKeys(values: ImportRowValues): string[] {
  const keys: string[] = [];
  if (values.email) keys.push(`e:${values.email}`);
  if (values.phoneNormalized) keys.push(`p:${phoneDigits(values.phoneNormalized)}`);
  return keys;
}

/** Counters and state of one import. */
class ImportRun {
  created = 0;
  updated = 0;
  skipped = 0;
  errorCount = 0;
  readonly errors: ImportRowError[] = [];
  pending: PendingRow[] = [];
  pendingKeys = new Set<string>();
  /** Dry run only: match keys of every row so far, standing in for the contacts a real run would have written. */
  readonly seenKeys = new Set<string>();

  constructor(
    readonly dryRun: boolean,
    readonly fields: readonly ContactFieldEntity[],
  ) {}

  error(row: number, message: string): void {
    this.errorCount++;
    if (this.errors.length < IMPORT_MAX_REPORTED_ERRORS) this.errors.push({ row, message });
  }

  take(): PendingRow[] {
    const rows = this.pending;
    this.pending = [];
    this.pendingKeys = new Set();
    return rows;
  }
}

/**
 * CSV import: papaparse reads the file chunk by chunk; rows are matched and written in batches of
 * 1,000 (two lookups, at most one company upsert, one INSERT and one UPDATE per batch, each batch
 * its own transaction), never a query per row.
 */
@Injectable()
export class ContactImportService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly contacts: ContactsRepository,
    private readonly companies: CompaniesRepository,
    private readonly fields: ContactFieldsService,
  ) {}

  async import(
    _ctx: TenantContext,
    file: UploadedCsv | undefined,
    dto: ImportContactsDto,
  ): Promise<ImportContactsResponse> {
    if (!file) throw AppException.field('file', 'is required: send the CSV as the multipart field "file"');
    const override = parseOverride(dto.mapping);
    const text = decodeUtf8(file.buffer);
    if (text.trim() === '') throw AppException.field('file', 'is empty');
    const run = new ImportRun(dto.dryRun ?? false, await this.fields.definitions());
    let columns: ColumnMapping | null = null;
    let row = 0;
    for await (const records of readCsvChunks(text, detectDelimiter(text))) {
      for (const record of records) {
        row++;
        if (!columns) {
          columns = headerMapping(record.cells, record.error, run.fields, override);
          continue;
        }
        if (record.cells.every((c) => c.trim() === '')) continue;
        if (record.error) {
          run.error(row, record.error);
          continue;
        }
        const parsed = parseImportRow(record.cells, columns.columns, run.fields);
        if (parsed.kind === 'skip') run.skipped++;
        else if (parsed.kind === 'error') run.error(row, parsed.message);
        else await this.add(run, { row, values: parsed.values });
      }
    }
    await this.flush(run);
    if (!columns) throw AppException.field('file', 'has no header row');
    return {
      created: run.created,
      updated: run.updated,
      skipped: run.skipped,
      errors: run.errors.sort((a, b) => a.row - b.row),
      errorCount: run.errorCount,
      dryRun: run.dryRun,
      mapping: columns.mapping,
    };
  }

  /** Queues a row; a row matching an earlier row of the same batch first flushes that batch, so it matches what was written. */
  private async add(run: ImportRun, pending: PendingRow): Promise<void> {
    const keys = matchKeys(pending.values);
    if (keys.some((k) => run.pendingKeys.has(k))) await this.flush(run);
    run.pending.push(pending);
    for (const k of keys) run.pendingKeys.add(k);
    if (run.pending.length >= IMPORT_BATCH_SIZE) await this.flush(run);
  }

  private async flush(run: ImportRun): Promise<void> {
    const rows = run.take();
    if (rows.length === 0) return;
    const work = () => this.writeBatch(run, rows);
    await (run.dryRun ? work() : this.tx.run(work));
  }

  /** Matches by email, then phone digits; matched rows update, the others create. */
  private async writeBatch(run: ImportRun, rows: readonly PendingRow[]): Promise<void> {
    const emails = rows.flatMap((r) => (r.values.email ? [r.values.email] : []));
    const phones = rows.flatMap((r) => (r.values.phoneNormalized ? [phoneDigits(r.values.phoneNormalized)] : []));
    const byEmail = await this.contacts.findIdsByEmails(emails);
    const byPhone = await this.contacts.findIdsByPhoneDigits(phones);
    const creates: PendingRow[] = [];
    const updates = new Map<string, ImportRowValues>();
    for (const r of rows) {
      const { email, phoneNormalized } = r.values;
      const id =
        (email ? byEmail.get(email) : undefined) ??
        (phoneNormalized ? byPhone.get(phoneDigits(phoneNormalized)) : undefined);
      const keys = matchKeys(r.values);
      if (id) {
        const earlier = updates.get(id);
        updates.set(id, earlier ? combineImportRows(earlier, r.values) : r.values);
        run.updated++;
      } else if (run.dryRun && keys.some((k) => run.seenKeys.has(k))) {
        run.updated++;
      } else {
        const missing = missingRequiredFields(r.values.customFields, run.fields);
        if (missing.length > 0) {
          run.error(r.row, missing.map((key) => `customFields.${key} is required`).join('; '));
          continue;
        }
        creates.push(r);
        run.created++;
      }
      if (run.dryRun) for (const k of keys) run.seenKeys.add(k);
    }
    if (run.dryRun) return;
    const companyNames = [...creates.map((r) => r.values), ...updates.values()].flatMap((v) =>
      v.company ? [v.company] : [],
    );
    const companyIds = await this.companies.findOrCreateByNames(companyNames);
    const toValues = (v: ImportRowValues): ImportedContactValues => ({
      name: v.name,
      email: v.email,
      phone: v.phone,
      phoneNormalized: v.phoneNormalized,
      avatarUrl: v.avatarUrl,
      companyId: v.company ? (companyIds.get(v.company.toLowerCase()) ?? null) : null,
      customFields: v.customFields,
      tags: v.tags,
    });
    await this.contacts.insertImported(creates.map((r) => toValues(r.values)));
    await this.contacts.updateImported([...updates].map(([id, v]) => ({ id, ...toValues(v) })));
  }
}

function parseOverride(raw: string | undefined): ImportMappingOverride | null {
  if (raw === undefined || raw.trim() === '') return null;
  const parsed = parseMappingJson(raw);
  if ('error' in parsed) throw AppException.field('mapping', parsed.error);
  return parsed.mapping;
}

function decodeUtf8(buffer: Buffer): string {
  try {
    return stripBom(new TextDecoder('utf-8', { fatal: true }).decode(buffer));
  } catch {
    throw AppException.field('file', 'must be UTF-8 text');
  }
}

function headerMapping(
  headers: string[],
  error: string | null,
  fields: readonly ContactFieldEntity[],
  override: ImportMappingOverride | null,
): ColumnMapping {
  if (error) throw AppException.field('file', `has an unreadable header row: ${error}`);
  const mapping = buildColumnMapping(headers, fields, override);
  const first = mapping.errors[0];
  if (first) throw AppException.validation(`${first.field} ${first.message}`, mapping.errors);
  if (!mapping.columns.some((t) => t === 'name' || t === 'email' || t === 'phone')) {
    throw AppException.field(
      'file',
      `has no name, email or phone column (headers: ${headers.join(', ')}); name them or send a mapping`,
    );
  }
  return mapping;
}
