import { describe, expect, it } from '@jest/globals';
import { detectDelimiter, normalizeHeader, parseJsonObject } from './csv-format';
import { CsvEncodingError, decodeUtf8, readCsvRecords } from './csv-reader';

async function* pieces(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function all<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

describe('core/csv', () => {
  it('guesses the delimiter from the header line among the candidates given', () => {
    expect(detectDelimiter('a|b|c\n1,2')).toBe(',');
    expect(detectDelimiter('a|b|c\n1,2', [',', ';', '\t', '|'])).toBe('|');
    expect(detectDelimiter('"x;y",b\n', [',', ';'])).toBe(',');
  });

  it('folds headers: case, punctuation and accents do not matter, other scripts stay', () => {
    expect(normalizeHeader(' E-mail Address ')).toBe('emailaddress');
    expect(normalizeHeader('Unit-Price (€)')).toBe('unitprice');
    expect(normalizeHeader('Catégorie')).toBe('categorie');
    expect(normalizeHeader('Имя')).toBe('имя');
  });

  it('reads a streamed source like a string, with row numbers counting blank records', async () => {
    const text = 'name,notes\n"Ada, L","one\ntwo"\n\nBob,x\n';
    const streamed = await all(readCsvRecords(pieces(text, 3), ','));
    const whole = await all(readCsvRecords(text, ','));
    expect(streamed).toEqual(whole);
    expect(streamed.map((r) => [r.row, r.cells])).toEqual([
      [1, ['name', 'notes']],
      [2, ['Ada, L', 'one\ntwo']],
      [4, ['Bob', 'x']],
    ]);
  });

  it('decodes UTF-8 split anywhere, drops the BOM, refuses other encodings', async () => {
    const bytes = Buffer.from('\uFEFFnäme', 'utf8');
    const split = [bytes.subarray(0, 5), bytes.subarray(5)];
    expect((await all(decodeUtf8(split))).join('')).toBe('näme');
    await expect(all(decodeUtf8([Buffer.from([0x6e, 0xe4, 0x6d])]))).rejects.toBeInstanceOf(CsvEncodingError);
  });

  it('parses a mapping field only when it is a JSON object', () => {
    expect(parseJsonObject('{"A":"email"}')).toEqual({ A: 'email' });
    expect(parseJsonObject('[1]')).toBeNull();
    expect(parseJsonObject('{oops')).toBeNull();
  });
});
