import type { CatalogPrice } from './catalog-item.entity';

const GROUPED = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;
const PLAIN = /^\d+(?:\.\d+)?$/;
/** Beyond this many significant digits a JavaScript number is no longer exact: keep the text. */
const MAX_EXACT_DIGITS = 15;

const INTEGER_FORMAT = new Intl.NumberFormat('en-US', { useGrouping: true, maximumFractionDigits: 0 });
const DECIMAL_FORMAT = new Intl.NumberFormat('en-US', {
  useGrouping: true,
  minimumFractionDigits: 2,
  maximumFractionDigits: 20,
});

/**
 * SPEC §2 / DESIGN §12: a number is shown with thousands separators (`1299` → `1,299`,
 * `1299.5` → `1,299.50`: decimals, when there are any, have at least two digits); a string is shown
 * exactly as sent. No price → null.
 */
export function formatPriceDisplay(price: CatalogPrice | null | undefined): string | null {
  if (price === null || price === undefined) return null;
  if (typeof price === 'string') return price;
  if (!Number.isFinite(price)) return String(price);
  return Number.isInteger(price) ? INTEGER_FORMAT.format(price) : DECIMAL_FORMAT.format(price);
}

/**
 * DESIGN §14 CSV cells (also used for website prices given as text): a plain number — digits,
 * optional `,` thousands separators, optional `.` decimals — becomes a number; anything else is kept
 * as the text written (trimmed). An empty cell is no price (null).
 */
export function parsePriceText(cell: string): CatalogPrice | null {
  const text = cell.trim();
  if (text === '') return null;
  if (!GROUPED.test(text) && !PLAIN.test(text)) return text;
  const digits = text.replace(/[,.]/g, '').replace(/^0+(?=\d)/, '');
  if (digits.length > MAX_EXACT_DIGITS) return text;
  return Number(text.replace(/,/g, ''));
}
