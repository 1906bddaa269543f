import type { CatalogPrice } from '../catalog-item.entity';
import { parsePriceText } from '../price.util';

/** A cell read for one field: the value, or why the row cannot be imported. */
export type CellResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

const ok = <T>(value: T): CellResult<T> => ({ ok: true, value });
const fail = <T>(error: string): CellResult<T> => ({ ok: false, error });

export const MAX_TEXT = {
  id: 255,
  name: 500,
  currency: 16,
  sku: 255,
  category: 255,
  description: 20_000,
  price: 100,
  keyword: 100,
} as const;
export const MAX_IMAGES = 50;
export const MAX_KEYWORDS = 100;
export const MAX_URL_LENGTH = 2048;

/** Prices per DESIGN §14: plain numbers (with `,` thousands separators) become numbers, other text stays text. */
export function readPriceCell(cell: string): CellResult<CatalogPrice | null> {
  const price = parsePriceText(cell);
  if (typeof price === 'string' && price.length > MAX_TEXT.price)
    return fail(`price is longer than ${MAX_TEXT.price} characters`);
  return ok(price);
}

/** Whole numbers, optionally with `,` thousands separators or a `.0` tail; empty is "not counted". */
export function readStockCell(cell: string): CellResult<number | null> {
  const text = cell.trim();
  if (text === '') return ok(null);
  if (!/^(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.0+)?$/.test(text))
    return fail(`stock "${truncate(text)}" is not a whole number of 0 or more`);
  const value = Number(text.replace(/,/g, ''));
  if (!Number.isSafeInteger(value) || value > 2_147_483_647) return fail(`stock "${truncate(text)}" is too large`);
  return ok(value);
}

export function isHttpUrl(value: string): boolean {
  if (value.length > MAX_URL_LENGTH) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/**
 * Several image URLs in one cell, separated by whitespace, `|`, `;`, new lines, or a comma that is
 * followed by another URL (so commas inside a URL, e.g. image-CDN parameters, survive).
 */
export function readImagesCell(cell: string): CellResult<string[]> {
  const parts = cell
    .split(/\s*[|;\n]\s*|\s+|,(?=\s*https?:\/\/)/i)
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  const bad = parts.find((part) => !isHttpUrl(part));
  if (bad !== undefined) return fail(`images: "${truncate(bad)}" is not an http(s) URL`);
  return ok(parts);
}

/** Keywords separated by `,`, `;` or `|`. */
export function readKeywordsCell(cell: string): CellResult<string[]> {
  const words = cell
    .split(/[,;|]/)
    .map((word) => word.trim())
    .filter((word) => word.length > 0);
  const long = words.find((word) => word.length > MAX_TEXT.keyword);
  if (long !== undefined) return fail(`keyword "${truncate(long)}" is longer than ${MAX_TEXT.keyword} characters`);
  return ok(words);
}

export function truncate(text: string, max = 40): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
