import { describe, expect, it } from '@jest/globals';
import Papa from 'papaparse';
import { detectDelimiter, normalizeHeader } from 'src/core/csv/csv-format';
import { readCsvChunks, stripBom } from 'src/core/csv/csv-reader';
import {
  buildColumnMapping,
  combineImportRows,
  missingRequiredFields,
  parseImportRow,
  guessTarget,
  parseMappingJson,
} from './csv-import.util';
import type { CustomFieldDefinition } from './custom-fields.util';

const fields: (CustomFieldDefinition & { label: string })[] = [
  { key: 'plan', label: 'Plan', type: 'SELECT', options: ['free', 'pro'], required: false },
  { key: 'lifetime_value', label: 'Lifetime value', type: 'NUMBER', options: [], required: false },
];

async function readAll(
  text: string,
  delimiter: ',' | ';',
  chunkSize?: number,
): Promise<{ cells: string[]; error: string | null }[]> {
  const out: { cells: string[]; error: string | null }[] = [];
  for await (const chunk of readCsvChunks(text, delimiter, chunkSize)) out.push(...chunk);
  return out;
}

describe('CSV import helpers', () => {
  it('strips a UTF-8 BOM only at the start', () => {
    expect(stripBom('\uFEFFname,email')).toBe('name,email');
    expect(stripBom('name,\uFEFF')).toBe('name,\uFEFF');
  });

  it('detects comma, semicolon and tab from the header line, ignoring quoted delimiters', () => {
    expect(detectDelimiter('name,email,phone\na;b;c;d;e;f')).toBe(',');
    expect(detectDelimiter('name;email;phone\n1,2,3,4,5')).toBe(';');
    expect(detectDelimiter('"a,b,c";email\nx')).toBe(';');
    expect(detectDelimiter('name\temail\n')).toBe('\t');
    expect(detectDelimiter('name\n')).toBe(',');
  });

  it('normalises headers and guesses standard and custom targets', () => {
    expect(normalizeHeader(' E-mail Address ')).toBe('emailaddress');
    expect(guessTarget('E-mail', fields)).toBe('email');
    expect(guessTarget('Mobile Number', fields)).toBe('phone');
    expect(guessTarget('Full name', fields)).toBe('name');
    expect(guessTarget('Organisation', fields)).toBe('company');
    expect(guessTarget('Lifetime Value', fields)).toBe('customFields.lifetime_value');
    expect(guessTarget('plan', fields)).toBe('customFields.plan');
    expect(guessTarget('Favourite colour', fields)).toBeNull();
    expect(guessTarget('', fields)).toBeNull();
  });

  it('applies a mapping override: explicit targets win, null ignores, bad entries are errors', () => {
    const auto = buildColumnMapping(['Name', 'Email', 'Notes', 'Name'], fields, null);
    expect(auto.columns).toEqual(['name', 'email', null, null]);
    expect(auto.mapping).toEqual({ Name: 'name', Email: 'email', Notes: null });

    const custom = buildColumnMapping(['Name', 'Mail 2', 'Email'], fields, { 'Mail 2': 'email', Name: null });
    expect(custom.errors).toEqual([]);
    expect(custom.columns).toEqual([null, 'email', null]);

    const withKey = buildColumnMapping(['Tier'], fields, { Tier: 'plan' });
    expect(withKey.columns).toEqual(['customFields.plan']);
    expect(buildColumnMapping(['Tier'], fields, { Tier: 'customFields.plan' }).columns).toEqual(['customFields.plan']);

    const bad = buildColumnMapping(['A', 'B'], fields, { A: 'shoe_size', Missing: 'name', B: 'email' });
    expect(bad.errors.map((e) => e.field)).toEqual(['mapping.A', 'mapping.Missing']);

    const twice = buildColumnMapping(['A', 'B'], fields, { A: 'email', B: 'email' });
    expect(twice.errors).toEqual([{ field: 'mapping.B', message: 'maps to email like column "A"' }]);
  });

  it('parses the mapping JSON form field', () => {
    expect(parseMappingJson('{"Mail":"email","X":null}')).toEqual({ mapping: { Mail: 'email', X: null } });
    expect(parseMappingJson('[1]')).toEqual({ error: 'must be a JSON object' });
    expect(parseMappingJson('{oops')).toEqual({ error: 'must be a JSON object' });
    expect(parseMappingJson('{"A":1}')).toHaveProperty('error');
  });

  it('reads records chunk by chunk exactly like a whole-file parse, multi-line cells included', async () => {
    let text = 'name,email,notes\n';
    for (let i = 0; i < 5000; i++) text += `"Person, ${i}",p${i}@example.com,"line one\nline ""two"" ${i}"\n`;
    const whole = Papa.parse<string[]>(text, { delimiter: ',' }).data;
    const chunked = await readAll(text, ',', 4096);
    expect(chunked.map((r) => r.cells)).toEqual(whole);
    expect(chunked).toHaveLength(5002); // header + 5000 + the empty record after the final newline
    expect(chunked[1]!.cells).toEqual(['Person, 0', 'p0@example.com', 'line one\nline "two" 0']);
  });

  it('keeps empty lines as records and reports unterminated quotes on their record', async () => {
    const records = await readAll('a;b\n\n"x;y";z\n"open;w\n', ';');
    expect(records.map((r) => r.cells)).toEqual([['a', 'b'], [''], ['x;y', 'z'], ['open;w\n']]);
    expect(records[3]!.error).toMatch(/quote/i);
    expect(records[2]!.error).toBeNull();
  });
});

describe('CSV rows to contact values', () => {
  const rowFields: CustomFieldDefinition[] = [
    { key: 'plan', type: 'SELECT', options: ['free', 'pro'], required: true },
    { key: 'seats', type: 'NUMBER', options: [], required: false },
  ];
  const columns = [
    'name',
    'email',
    'phone',
    'company',
    'tags',
    'avatarUrl',
    'customFields.plan',
    'customFields.seats',
    null,
  ] as const;

  it('trims cells, normalises email, phone and tags, converts custom values, ignores unmapped columns', () => {
    const parsed = parseImportRow(
      [' Ada ', 'ADA@x.test', '+1 555 0100', 'Acme', 'VIP; lead', 'https://a.test/a.png', 'PRO', '1,024', 'ignored'],
      columns,
      rowFields,
    );
    expect(parsed).toEqual({
      kind: 'values',
      values: {
        name: 'Ada',
        email: 'ada@x.test',
        phone: '+1 555 0100',
        phoneNormalized: '+15550100',
        avatarUrl: 'https://a.test/a.png',
        company: 'Acme',
        tags: ['vip', 'lead'],
        customFields: { plan: 'pro', seats: 1024 },
      },
    });
  });

  it('lists every problem of a row, skips rows with nothing identifying, and treats blank cells as no value', () => {
    expect(parseImportRow(['x', 'bad', 'call', '', '', 'ftp://a', 'gold', 'many'], columns, rowFields)).toEqual({
      kind: 'error',
      message:
        'email "bad" is not a valid email address; phone "call" is not a valid phone number; avatarUrl "ftp://a" is not an http(s) URL; ' +
        'customFields.plan must be one of: free, pro; customFields.seats must be a number',
    });
    expect(parseImportRow(['', '', '', 'Acme', 'tag', '', 'pro', ''], columns, rowFields)).toEqual({ kind: 'skip' });
    const blank = parseImportRow(['Bo'], columns, rowFields);
    expect(blank).toEqual({
      kind: 'values',
      values: expect.objectContaining({ name: 'Bo', email: null, phone: null, tags: [], customFields: {} }),
    });
  });

  it('knows which required fields a new contact lacks', () => {
    expect(missingRequiredFields({}, rowFields)).toEqual(['plan']);
    expect(missingRequiredFields({ plan: 'free' }, rowFields)).toEqual([]);
  });

  it('combines two rows for one contact: the later values win, tags add up', () => {
    const base = {
      name: 'A',
      email: 'a@x.test',
      phone: '1',
      phoneNormalized: '1',
      avatarUrl: null,
      company: 'C1',
      tags: ['t1'],
      customFields: { plan: 'free', seats: 1 },
    };
    const later = {
      name: null,
      email: null,
      phone: '+2',
      phoneNormalized: '+2',
      avatarUrl: 'https://x',
      company: null,
      tags: ['t2', 't1'],
      customFields: { plan: 'pro' },
    };
    expect(combineImportRows(base, later)).toEqual({
      name: 'A',
      email: 'a@x.test',
      phone: '+2',
      phoneNormalized: '+2',
      avatarUrl: 'https://x',
      company: 'C1',
      tags: ['t1', 't2'],
      customFields: { plan: 'pro', seats: 1 },
    });
  });
});
