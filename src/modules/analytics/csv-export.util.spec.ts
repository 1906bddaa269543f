import { describe, expect, it } from '@jest/globals';
import { stringify } from 'csv-stringify/sync';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { csvSafeText, reportCsvEncoder } from './csv-export.util';

async function collect(
  rows: (Record<string, unknown> | unknown[])[],
  columns: string[],
  frameBytes?: number,
): Promise<{ text: string; frames: number }> {
  const frames: Buffer[] = [];
  const encoder = reportCsvEncoder(columns, frameBytes);
  // 'data' events see each pushed frame (an async iterator would join buffered frames).
  encoder.on('data', (chunk: Buffer) => frames.push(chunk));
  await pipeline(Readable.from(rows), encoder);
  return { text: Buffer.concat(frames).toString('utf8'), frames: frames.length };
}

describe('report CSV', () => {
  it('prefixes text cells that a spreadsheet would read as a formula', () => {
    expect(csvSafeText('=SUM(A1)')).toBe("'=SUM(A1)");
    expect(csvSafeText('+1')).toBe("'+1");
    expect(csvSafeText('-1')).toBe("'-1");
    expect(csvSafeText('@cmd')).toBe("'@cmd");
    expect(csvSafeText('a=b')).toBe('a=b');
    expect(csvSafeText('')).toBe('');
  });

  it('writes a header of column keys, empty cells for null, numbers as is, quotes where needed', async () => {
    const { text } = await collect(
      [
        { a: '=1+1', b: -5, c: null, d: true },
        { a: 'x,"y"', b: 1.5, c: 'line\nbreak', d: false },
      ],
      ['a', 'b', 'c', 'd'],
    );
    expect(text).toBe(`a,b,c,d\n'=1+1,-5,,true\n"x,""y""",1.5,"line\nbreak",false\n`);
  });

  it('reads array rows in column order and ignores trailing (keyset) values', async () => {
    const { text } = await collect([['=x', 2, null, '2026-01-01', 'row-id']], ['a', 'b', 'c']);
    expect(text).toBe(`a,b,c\n'=x,2,\n`);
  });

  it('writes the header for an empty report', async () => {
    expect((await collect([], ['a', 'b'])).text).toBe('a,b\n');
  });

  it('encodes tricky cells exactly as csv-stringify does with the formula guard', async () => {
    const cells = ['', ' lead', 'tab\tin', 'cr\rin', '"', '""q', 'ümlaut, 日本', '-', '@', '=', 'a\r\nb', '0', 'NULL'];
    const rows = cells.map((c, i) => ({ t: c, n: i % 2 ? -i : i / 3, b: i % 3 === 0, z: i % 4 ? null : c }));
    const expected = stringify(rows, {
      header: true,
      columns: ['t', 'n', 'b', 'z'],
      cast: {
        string: (v: string) => (/^[=+\-@]/.test(v) ? `'${v}` : v),
        boolean: (v: boolean) => (v ? 'true' : 'false'),
      },
    });
    expect((await collect(rows, ['t', 'n', 'b', 'z'])).text).toBe(expected);
  });

  it('joins rows into frames of the given size', async () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({ a: `row-${i}` }));
    const { text, frames } = await collect(rows, ['a'], 64);
    expect(text.split('\n')).toHaveLength(52);
    expect(frames).toBeLessThan(20);
    expect(frames).toBeGreaterThan(1);
  });
});
