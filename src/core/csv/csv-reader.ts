import Papa from 'papaparse';
import { Readable } from 'node:stream';

/**
 * The one CSV reader of the house (contact import, catalogue import): papaparse in chunk mode with
 * pause/resume, so a large file is never held as one array of rows, and the caller's awaits (a batch
 * written to the database) hold the parser back.
 */

/** One record of the file. `row` counts records from 1, blank ones included, as a spreadsheet shows them. */
export interface CsvRecord {
  readonly row: number;
  readonly cells: string[];
  /** Why the record could not be read (e.g. an unterminated quote), or null. */
  readonly error: string | null;
}

/** The text is not UTF-8: the caller answers with its own 400. */
export class CsvEncodingError extends Error {
  constructor() {
    super('The file is not UTF-8 text');
  }
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Bytes → UTF-8 text, piece by piece: a leading BOM removed, invalid UTF-8 → `CsvEncodingError` (wherever it shows up). */
export async function* decodeUtf8(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  const decode = (bytes?: Uint8Array): string => {
    try {
      return bytes ? decoder.decode(bytes, { stream: true }) : decoder.decode();
    } catch {
      throw new CsvEncodingError();
    }
  };
  for await (const chunk of chunks) {
    const text = decode(chunk);
    if (text) yield text;
  }
  const rest = decode();
  if (rest) yield rest;
}

/**
 * Every record of `source` (a string, or text arriving in pieces), a chunk at a time: each yielded
 * array covers about `chunkSize` characters of a string source, or one piece of a streamed one.
 * Empty lines come through as records with one empty cell, so `row` matches the file's rows.
 */
export async function* readCsvChunks(
  source: string | AsyncIterable<string>,
  delimiter: string,
  chunkSize = 1 << 20,
): AsyncGenerator<CsvRecord[]> {
  const state: {
    pending: { records: CsvRecord[]; parser: Papa.Parser } | null;
    done: boolean;
    failure: unknown;
  } = { pending: null, done: false, failure: null };
  let wake: (() => void) | null = null;
  const notify = (): void => {
    const resolve = wake;
    wake = null;
    resolve?.();
  };
  let row = 0;
  // papaparse's typings model chunk mode for files only; on a string or a Node stream it works the same way.
  const config: Papa.ParseConfig<string[]> & {
    chunkSize: number;
    chunk: (results: Papa.ParseResult<string[]>, parser: Papa.Parser) => void;
    error: (error: unknown) => void;
  } = {
    delimiter,
    chunkSize,
    skipEmptyLines: false,
    chunk: (results: Papa.ParseResult<string[]>, parser: Papa.Parser) => {
      parser.pause();
      const errors = new Map<number, string>();
      for (const e of results.errors) if (typeof e.row === 'number' && !errors.has(e.row)) errors.set(e.row, e.message);
      const records = results.data.map((cells, i) => ({
        row: ++row,
        cells: cells.map((cell) => (typeof cell === 'string' ? cell : String(cell))),
        error: errors.get(i) ?? null,
      }));
      state.pending = { records, parser };
      notify();
    },
    complete: () => {
      state.done = true;
      notify();
    },
    error: (error: unknown) => {
      state.failure = error ?? new Error('The CSV source failed');
      state.done = true;
      notify();
    },
  };
  const input = typeof source === 'string' ? source : Readable.from(source);
  (Papa.parse as (input: unknown, config: unknown) => void)(input, config);
  try {
    for (;;) {
      const current = state.pending;
      if (current) {
        state.pending = null;
        yield current.records;
        current.parser.resume();
        continue;
      }
      if (state.failure) throw state.failure;
      if (state.done) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    if (input instanceof Readable) input.destroy();
  }
}

function isBlank(cells: readonly string[]): boolean {
  return cells.every((cell) => cell.trim() === '');
}

/** The non-blank records of `source`, one by one (row numbers still count the blank ones). */
export async function* readCsvRecords(
  source: string | AsyncIterable<string>,
  delimiter: string,
): AsyncGenerator<CsvRecord> {
  for await (const records of readCsvChunks(source, delimiter)) {
    for (const record of records) if (!isBlank(record.cells)) yield record;
  }
}
