import { describe, expect, it } from '@jest/globals';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { coalesceChunks, csvSafeText, reportCsvStringifier } from './csv-export.util';

async function collect(rows: Record<string, unknown>[], columns: string[]): Promise<{ text: string; frames: number }> {
  const frames: Buffer[] = [];
  await pipeline(Readable.from(rows), reportCsvStringifier(columns), coalesceChunks(64), async (source) => {
    for await (const chunk of source) frames.push(chunk as Buffer);
  });
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

  it('joins per-row chunks into frames of the given size', async () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({ a: `row-${i}` }));
    const { text, frames } = await collect(rows, ['a']);
    expect(text.split('\n')).toHaveLength(52);
    expect(frames).toBeLessThan(20);
  });
});
