import { describe, expect, it } from '@jest/globals';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AppException } from 'src/core/errors/app.exception';
import { FeedItemDto } from './feed.dto';
import { FeedItemsPipe, plainlyValidFeedItem } from './feed-items.pipe';

const pipe = new FeedItemsPipe();

/** What class-validator alone says of one item (the rules of SPEC §2 as the DTO declares them). */
function validatorAccepts(item: Record<string, unknown>): boolean {
  return validateSync(plainToInstance(FeedItemDto, item), { whitelist: true, forbidNonWhitelisted: true }).length === 0;
}

function fieldOf(body: unknown): string | undefined {
  try {
    pipe.transform(body);
  } catch (error) {
    if (error instanceof AppException) return error.details[0]?.field;
    throw error;
  }
  return undefined;
}

const full = {
  id: 'SKU-1',
  name: 'Kettle',
  price: 49.9,
  currency: 'EUR',
  description: 'Steel',
  sku: 'K-1',
  category: 'Kitchen',
  stock: 10,
  images: ['https://cdn.example.com/k.jpg'],
};

// Items SPEC §2 / docs/catalogue.md reject: the field the 400 must name.
const invalid: [string, Record<string, unknown>, string][] = [
  ['no id', { name: 'x' }, 'id'],
  ['empty id', { id: '' }, 'id'],
  ['numeric id', { id: 7 }, 'id'],
  ['id of 256 characters', { id: 'x'.repeat(256) }, 'id'],
  ['null name', { id: 'a', name: null }, 'name'],
  ['empty name', { id: 'a', name: '' }, 'name'],
  ['negative price', { id: 'a', price: -1 }, 'price'],
  ['blank price text', { id: 'a', price: '  ' }, 'price'],
  ['price as an object', { id: 'a', price: { amount: 1 } }, 'price'],
  ['infinite price', { id: 'a', price: Number.POSITIVE_INFINITY }, 'price'],
  ['fractional stock', { id: 'a', stock: 1.5 }, 'stock'],
  ['negative stock', { id: 'a', stock: -1 }, 'stock'],
  ['stock as text', { id: 'a', stock: '3' }, 'stock'],
  ['currency of 17 characters', { id: 'a', currency: 'C'.repeat(17) }, 'currency'],
  ['description as a number', { id: 'a', description: 5 }, 'description'],
  ['ftp image', { id: 'a', images: ['ftp://x.example.com/a.jpg'] }, 'images'],
  ['images not a list', { id: 'a', images: 'https://x.example.com/a.jpg' }, 'images'],
  ['51 images', { id: 'a', images: Array.from({ length: 51 }, (_, i) => `https://x.example.com/${i}.jpg`) }, 'images'],
  ['keywords (local only)', { id: 'a', keywords: ['x'] }, 'keywords'],
  ['unknown field', { id: 'a', colour: 'red' }, 'colour'],
];

describe('FeedItemsPipe: the usual body without class-validator, the same answers', () => {
  it('builds the same items class-transformer builds for valid bodies', () => {
    const items = [full, { id: 'SKU-2', price: '39,00 €' }, { id: 'SKU-3', stock: null, images: null, name: 'Mug' }];
    const dto = pipe.transform({ items });
    expect(dto.items).toEqual(items.map((item) => plainToInstance(FeedItemDto, item)));
    expect(dto.items.every((item) => item instanceof FeedItemDto)).toBe(true);
  });

  it.each(invalid)('rejects an item with %s, naming the field', (_name, item, field) => {
    expect(plainlyValidFeedItem(item)).toBe(false);
    expect(validatorAccepts(item)).toBe(false);
    expect(fieldOf({ items: [full, item] })).toBe(`items.1.${field}`);
  });

  it('never accepts what class-validator rejects (each field of a valid item changed to odd values)', () => {
    const odd: unknown[] = [
      undefined,
      null,
      '',
      ' ',
      0,
      -0.5,
      1.5,
      2,
      'x'.repeat(256),
      [],
      ['https://a.example.com/x'],
      {},
      true,
    ];
    for (const field of Object.keys(full)) {
      for (const value of odd) {
        const item: Record<string, unknown> = { ...full, [field]: value };
        if (value === undefined) delete item[field];
        if (plainlyValidFeedItem(item))
          expect({ field, value, accepted: validatorAccepts(item) }).toEqual({ field, value, accepted: true });
      }
    }
  });

  it('leaves unusual but valid items to class-validator, which accepts them', () => {
    // 300 emoji: 600 UTF-16 units (over the fast check's 500) but 300 characters for class-validator.
    const item = { id: 'a', name: '😀'.repeat(300) };
    expect(plainlyValidFeedItem(item)).toBe(false);
    expect(validatorAccepts(item)).toBe(true);
    expect(fieldOf({ items: [item] })).toBeUndefined();
  });

  it('still rejects a top-level field besides items, and a repeated id', () => {
    expect(fieldOf({ items: [full], extra: 1 })).toBe('extra');
    expect(fieldOf({ items: [full, { ...full }] })).toBe('items.1.id');
  });
});
