import Papa from 'papaparse';
import { Readable } from 'node:stream';
import { AppException } from 'src/core/errors/app.exception';

/** One record of the file with the row number a spreadsheet shows for it (header = 1 in a plain file). */
export interface CsvRecord {
  readonly row: number;
  readonly cells: string[];
}

/** Characters handed to the streaming parser at a time (keeps the parsed rows in flight small). */
const CHUNK_CHARS = 256 * 1024;
const DELIMITER_SAMPLE_CHARS = 64 * 1024;

/** UTF-8 with or without BOM; anything else (or a binary file) is refused with 400. */
export function decodeCsv(buffer: Buffer): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(buffer);
  } catch {
    throw AppException.field('file', 'is not UTF-8 text (save the spreadsheet as "CSV UTF-8")');
  }
  if (text.includes('\u0000')) throw AppException.field('file', 'is not a text file');
  return text;
}

/** The delimiter papaparse's guesser picks from the start of the file (`,` `;` tab `|`), `,` when unsure. */
export function detectDelimiter(text: string): string {
  const sample = text.slice(0, DELIMITER_SAMPLE_CHARS);
  const guessed = Papa.parse<string[]>(sample, { preview: 20, delimitersToGuess: [',', ';', '\t', '|'] }).meta
    .delimiter;
  return guessed || ',';
}

function isBlank(cells: readonly string[]): boolean {
  return cells.every((cell) => cell.trim() === '');
}

function* chunksOf(text: string): Generator<string> {
  for (let start = 0; start < text.length; start += CHUNK_CHARS) yield text.slice(start, start + CHUNK_CHARS);
}

/**
 * Every non-blank record, streamed with back-pressure (a 100,000-row file is never held as rows).
 * Row numbers count records, blank ones included, like a spreadsheet does, so `row` is the line
 * number the user sees (a quoted cell spanning lines is still one row).
 */
export async function* readCsvRecords(text: string, delimiter: string): AsyncGenerator<CsvRecord> {
  const parser = Papa.parse(Papa.NODE_STREAM_INPUT, { delimiter, skipEmptyLines: false });
  const source = Readable.from(chunksOf(text), { objectMode: false });
  source.on('error', (error: Error) => parser.destroy(error));
  source.pipe(parser);
  let row = 0;
  for await (const record of parser as AsyncIterable<unknown>) {
    row++;
    if (!Array.isArray(record)) continue;
    const cells = record.map((cell) => (typeof cell === 'string' ? cell : String(cell)));
    if (!isBlank(cells)) yield { row, cells };
  }
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
