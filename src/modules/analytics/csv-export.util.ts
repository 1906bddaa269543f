import { stringify, type Stringifier } from 'csv-stringify';
import { Transform } from 'node:stream';

/** Characters that make a spreadsheet read a cell as a formula. */
const FORMULA_START = /^[=+\-@]/;

/** A text cell made safe for spreadsheets: one starting with = + - @ gets a leading `'`. */
export function csvSafeText(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/**
 * A CSV stringifier for report rows (objects keyed by column): a header of column keys, null →
 * empty cell, booleans `true`/`false`, text guarded against formula injection. It is a Transform
 * stream: piped, it applies backpressure both ways.
 */
export function reportCsvStringifier(columns: readonly string[]): Stringifier {
  return stringify({
    header: true,
    columns: columns.map((key) => ({ key, header: key })),
    cast: {
      string: (value: string) => csvSafeText(value),
      boolean: (value: boolean) => (value ? 'true' : 'false'),
    },
  });
}

/** Bytes gathered before a write to the response (one chunked-encoding frame per ~64 KB, not per row). */
const COALESCE_BYTES = 64 * 1024;

/**
 * Joins the stringifier's one-chunk-per-row output into ~64 KB writes. Backpressure is kept: it
 * holds at most one frame and pushes through the normal Transform flow.
 */
export function coalesceChunks(limit = COALESCE_BYTES): Transform {
  let parts: Buffer[] = [];
  let size = 0;
  return new Transform({
    transform(chunk: Buffer | string, _enc, done): void {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      parts.push(buf);
      size += buf.length;
      if (size >= limit) {
        const frame = Buffer.concat(parts, size);
        parts = [];
        size = 0;
        done(null, frame);
      } else {
        done();
      }
    },
    flush(done): void {
      done(null, size ? Buffer.concat(parts, size) : undefined);
    },
  });
}
