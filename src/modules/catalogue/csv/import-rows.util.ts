import type { CatalogPrice } from '../catalog-item.entity';
import type { ImportRow } from '../catalog-items.repository';
import { MAX_TEXT, readImagesCell, readKeywordsCell, readPriceCell, readStockCell } from './csv-cells.util';
import { IMPORT_FIELDS, type ImportField, type ImportMapping } from './header-guess.util';

/** For each field, the column indexes it is read from (several only for images and keywords). */
export type ColumnPlan = ReadonlyMap<ImportField, readonly number[]>;

export function planColumns(headers: readonly string[], mapping: ImportMapping): ColumnPlan {
  const plan = new Map<ImportField, number[]>();
  headers.forEach((header, index) => {
    const field = mapping[header];
    if (field) plan.set(field, [...(plan.get(field) ?? []), index]);
  });
  return plan;
}

export type RowOutcome =
  { readonly ok: true; readonly row: ImportRow } | { readonly ok: false; readonly row: number; readonly error: string };

type TextField = 'id' | 'name' | 'currency' | 'description' | 'sku' | 'category';
const TEXT_LIMITS: Record<TextField, number> = {
  id: MAX_TEXT.id,
  name: MAX_TEXT.name,
  currency: MAX_TEXT.currency,
  description: MAX_TEXT.description,
  sku: MAX_TEXT.sku,
  category: MAX_TEXT.category,
};

/**
 * One CSV record → the row the import writes, or the reason it cannot be imported. An empty cell
 * leaves the field alone (it is not "sent"): on an existing item it keeps its value.
 */
export function buildImportRow(cells: readonly string[], rowNumber: number, plan: ColumnPlan): RowOutcome {
  const sent: ImportField[] = [];
  const cellsOf = (field: ImportField): string[] => (plan.get(field) ?? []).map((index) => cells[index] ?? '');
  const text = (field: TextField): string | null => {
    const value = cellsOf(field)[0]?.trim() ?? '';
    if (value === '') return null;
    if (value.length > TEXT_LIMITS[field])
      throw new RowError(`${field} is longer than ${TEXT_LIMITS[field]} characters`);
    sent.push(field);
    return value;
  };
  try {
    const externalId = text('id');
    const name = text('name');
    const currency = text('currency');
    const description = text('description');
    const sku = text('sku');
    const category = text('category');

    let price: CatalogPrice | null = null;
    const priceCell = cellsOf('price')[0];
    if (priceCell !== undefined) {
      const read = readPriceCell(priceCell);
      if (!read.ok) throw new RowError(read.error);
      price = read.value;
      if (price !== null) sent.push('price');
    }

    let stock: number | null = null;
    const stockCell = cellsOf('stock')[0];
    if (stockCell !== undefined) {
      const read = readStockCell(stockCell);
      if (!read.ok) throw new RowError(read.error);
      stock = read.value;
      if (stock !== null) sent.push('stock');
    }

    const images: string[] = [];
    for (const cell of cellsOf('images')) {
      const read = readImagesCell(cell);
      if (!read.ok) throw new RowError(read.error);
      images.push(...read.value);
    }
    if (images.length > 0) sent.push('images');

    const keywords: string[] = [];
    for (const cell of cellsOf('keywords')) {
      const read = readKeywordsCell(cell);
      if (!read.ok) throw new RowError(read.error);
      keywords.push(...read.value);
    }
    if (keywords.length > 0) sent.push('keywords');

    if (externalId === null && sku === null && name === null)
      throw new RowError('has no id, SKU or name to find or create the product by');
    return {
      ok: true,
      row: {
        ord: rowNumber,
        external_id: externalId,
        name,
        price,
        currency,
        description,
        sku,
        category,
        stock,
        images: images.length > 0 ? [...new Set(images)] : null,
        keywords: keywords.length > 0 ? [...new Set(keywords)] : null,
        sent: IMPORT_FIELDS.filter((field) => field !== 'id' && sent.includes(field)),
      },
    };
  } catch (error) {
    if (error instanceof RowError) return { ok: false, row: rowNumber, error: error.message };
    throw error;
  }
}

class RowError extends Error {}

/** Keys a row can match an existing item by; two rows of one write batch must not share one. */
export function matchKeys(row: ImportRow): string[] {
  const keys: string[] = [];
  if (row.external_id !== null) keys.push(`i:${row.external_id}`);
  if (row.sku !== null) keys.push(`s:${row.sku}`);
  if (row.name !== null) keys.push(`n:${row.name}`);
  return keys;
}
