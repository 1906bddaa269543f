import { Readable, Writable, pipeline } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import { detectDelimiter } from 'src/core/csv/csv-format';
import { type CsvRecord, CsvEncodingError, decodeUtf8, readCsvRecords } from 'src/core/csv/csv-reader';
import { AppException } from 'src/core/errors/app.exception';

/** The catalogue also reads pipe-separated exports. */
const CATALOGUE_DELIMITERS = [',', ';', '\t', '|'] as const;

/**
 * An upload as the import keeps it: gzip-compressed while it streams in (CSV shrinks about 8×), as
 * the compressor's pieces of at most 64 kB (no large Buffer, and stored a piece per statement:
 * CatalogImportsRepository.insertContent).
 */
export interface StoredCsv {
  readonly gzip: readonly Buffer[];
  /** Bytes uploaded (before compression). */
  readonly size: number;
}

const DELIMITER_SAMPLE_CHARS = 64 * 1024;

/** The compressor's output pieces (zlib's chunk size): at most the stored pieces' size (IMPORT_CHUNK_BYTES). */
const IMPORT_PIECE_BYTES = 64 * 1024;

interface UploadingFile {
  readonly stream: Readable;
}

/**
 * Multer storage engine: compresses the upload as it arrives, so a 50 MB file never sits in memory
 * (multer's memory storage would hold it, plus a concatenated copy). Multer merges `{gzip, size}`
 * into the uploaded file object; its `limits.fileSize` still applies (→ 413).
 */
export class GzipUploadStorage {
  _handleFile(_req: unknown, file: UploadingFile, callback: (error: Error | null, info?: StoredCsv) => void): void {
    const chunks: Buffer[] = [];
    let size = 0;
    file.stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
    });
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done): void {
        chunks.push(chunk);
        done();
      },
    });
    pipeline(file.stream, createGzip({ level: 6, chunkSize: IMPORT_PIECE_BYTES }), sink, (error) => {
      if (error) callback(error);
      else callback(null, { gzip: chunks, size });
    });
  }

  _removeFile(_req: unknown, _file: unknown, callback: (error: Error | null) => void): void {
    callback(null);
  }
}

/**
 * The stored upload as UTF-8 text, chunk by chunk: BOM removed, invalid UTF-8 or a binary file
 * refused with 400 (whenever in the file it shows up).
 */
export async function* decodeStoredCsv(stored: readonly Buffer[]): AsyncGenerator<string> {
  const gunzip: AsyncIterable<Buffer> = Readable.from(stored).pipe(createGunzip());
  try {
    for await (const text of decodeUtf8(gunzip)) {
      if (text.includes('\u0000')) throw AppException.field('file', 'is not a text file');
      yield text;
    }
  } catch (error) {
    if (error instanceof CsvEncodingError) {
      throw AppException.field('file', 'is not UTF-8 text (save the spreadsheet as "CSV UTF-8")');
    }
    throw error;
  }
}

/** The first `chars` characters of the stored upload (for guessing the delimiter). */
export async function readStoredSample(stored: readonly Buffer[], chars = DELIMITER_SAMPLE_CHARS): Promise<string> {
  let sample = '';
  for await (const text of decodeStoredCsv(stored)) {
    sample += text;
    if (sample.length >= chars) break;
  }
  return sample.slice(0, chars);
}

/** The delimiter of the header line (`,` `;` tab `|`), `,` when unsure. */
export function detectCatalogueDelimiter(sample: string): string {
  return detectDelimiter(sample, CATALOGUE_DELIMITERS);
}

/**
 * Every non-blank record of the stored upload, streamed end to end (gunzip → UTF-8 → the CSV reader)
 * with back-pressure: a 100,000-row file is never held as text or as rows. `row` is the row the user
 * sees (a quoted cell spanning lines is still one row).
 */
export function readStoredRecords(stored: readonly Buffer[], delimiter: string): AsyncGenerator<CsvRecord> {
  return readCsvRecords(decodeStoredCsv(stored), delimiter);
}

/**
 * Header names as columns are known by: trimmed; an empty header becomes "Column N"; a repeated
 * one gets " (2)", " (3)"… so a mapping keyed by header is unambiguous.
 */
export function resolveHeaders(raw: readonly string[]): { headers: string[]; renamed: string[] } {
  const seen = new Map<string, number>();
  const renamed: string[] = [];
  const headers = raw.map((cell, index) => {
    const base = cell.trim() || `Column ${index + 1}`;
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    if (count === 1) return base;
    const name = `${base} (${count})`;
    renamed.push(`"${base}" appears ${count} times: column ${index + 1} is called "${name}"`);
    return name;
  });
  return { headers, renamed };
}
