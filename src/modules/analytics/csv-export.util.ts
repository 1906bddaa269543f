import { stringify, type Stringifier } from 'csv-stringify';

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
