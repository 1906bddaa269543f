import { Transform } from 'node:stream';

/** Characters that make a spreadsheet read a cell as a formula. */
const FORMULA_START = /^[=+\-@]/;
/** A cell holding one of these is quoted (RFC 4180; the rule csv-stringify applies by default). */
const NEEDS_QUOTES = /[",\n\r]/;

/** A text cell made safe for spreadsheets: one starting with = + - @ gets a leading `'`. */
export function csvSafeText(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/**
 * One CSV cell: null → empty, booleans `true`/`false`, numbers as JavaScript prints them, text
 * guarded against formula injection, then quoted (inner quotes doubled) where it holds `"` `,` or a
 * line break. The same output as csv-stringify with the options the export used before (the unit
 * test checks it against csv-stringify).
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text: string;
  if (typeof value === 'string') text = csvSafeText(value);
  else if (typeof value === 'boolean') return value ? 'true' : 'false';
  else if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  else if (value instanceof Date) return String(value.getTime());
  else text = JSON.stringify(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Bytes gathered before a write to the response (one chunked-encoding frame per ~64 KB, not per row). */
const FRAME_BYTES = 64 * 1024;

/**
 * The export's CSV stage: report rows in (objects keyed by column, or arrays in column order —
 * extra trailing values such as the keyset columns are ignored), ~64 KB buffers out, starting with
 * a header of column keys (also for an empty report). One stage instead of strip → stringify →
 * coalesce: rows are encoded straight into a string that is pushed as one frame when it reaches
 * `frameBytes`. Backpressure is the Transform's: at most one frame is held.
 */
export function reportCsvEncoder(columns: readonly string[], frameBytes = FRAME_BYTES): Transform {
  const width = columns.length;
  let pending = `${columns.map(csvCell).join(',')}\n`;
  return new Transform({
    writableObjectMode: true,
    writableHighWaterMark: 1000,
    transform(row: Record<string, unknown> | unknown[], _enc, done): void {
      let line = '';
      if (Array.isArray(row)) {
        for (let i = 0; i < width; i++) line += (i ? ',' : '') + csvCell(row[i]);
      } else {
        for (let i = 0; i < width; i++) line += (i ? ',' : '') + csvCell(row[columns[i]!]);
      }
      pending += `${line}\n`;
      if (pending.length >= frameBytes) {
        const frame = Buffer.from(pending, 'utf8');
        pending = '';
        done(null, frame);
      } else {
        done();
      }
    },
    flush(done): void {
      done(null, pending ? Buffer.from(pending, 'utf8') : undefined);
    },
  });
}
