import type { CatalogPrice } from '../catalog-item.entity';
import type { ConcreteWebsiteFormat } from '../catalog-website.entity';
import { MAX_IMAGES, MAX_TEXT, isHttpUrl } from '../csv/csv-cells.util';
import { parsePriceText } from '../price.util';

/**
 * A product as one website page gives it, in the feed's terms. A field left undefined was not given
 * by the site (the item keeps its value); null means the site says "none".
 */
export interface SiteProduct {
  readonly productId: string;
  readonly name?: string | null;
  readonly price?: CatalogPrice | null;
  readonly currency?: string | null;
  readonly description?: string | null;
  readonly sku?: string | null;
  readonly category?: string | null;
  readonly stock?: number | null;
  readonly images?: string[];
}

export interface ParsedPage {
  readonly products: SiteProduct[];
  /** Entries that are not products we can use (no id). */
  readonly skipped: number;
}

export class UnrecognisedPageError extends Error {}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function arrayOf(value: unknown): unknown[] | null {
  return Array.isArray(value) ? value : null;
}

/** The product list of a generic page: a top-level array, or one under `items`, `products` or `data`. */
function genericList(body: unknown): unknown[] | null {
  if (Array.isArray(body)) return body;
  if (!isObject(body)) return null;
  return arrayOf(body.items) ?? arrayOf(body.products) ?? arrayOf(body.data);
}

/** Whether a page holds a product list at all (possibly empty) in any of the understood shapes. */
export function hasProductList(body: unknown): boolean {
  return genericList(body) !== null;
}

/**
 * AUTO (DESIGN §14): Shopify by `products[].variants`; the WooCommerce Store API by
 * `prices.currency_minor_unit`; otherwise feed-shaped items. Null when the page holds no product
 * to recognise (an empty page).
 */
export function detectFormat(body: unknown): ConcreteWebsiteFormat | null {
  if (
    isObject(body) &&
    Array.isArray(body.products) &&
    body.products.some((p) => isObject(p) && Array.isArray(p.variants))
  )
    return 'SHOPIFY';
  const list = genericList(body);
  if (list === null) return null;
  if (list.some((p) => isObject(p) && isObject(p.prices) && p.prices.currency_minor_unit !== undefined))
    return 'WOOCOMMERCE';
  return list.length > 0 ? 'GENERIC' : null;
}

export function parsePage(body: unknown, format: ConcreteWebsiteFormat): ParsedPage {
  switch (format) {
    case 'SHOPIFY':
      return parseList(isObject(body) ? arrayOf(body.products) : null, shopifyProduct);
    case 'WOOCOMMERCE':
      return parseList(genericList(body), wooProduct);
    case 'GENERIC':
      return parseList(genericList(body), genericProduct);
  }
}

function parseList(list: unknown[] | null, read: (entry: Json) => SiteProduct | null): ParsedPage {
  if (list === null)
    throw new UnrecognisedPageError('no product list found (expected an array, or one under items, products or data)');
  const products: SiteProduct[] = [];
  let skipped = 0;
  for (const entry of list) {
    const product = isObject(entry) ? read(entry) : null;
    if (product) products.push(product);
    else skipped++;
  }
  return { products, skipped };
}

function idOf(value: unknown): string | null {
  if (typeof value === 'string' && value.trim() !== '') return value.trim().slice(0, MAX_TEXT.id);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/** Text fields: a string (cut to its limit), null, or undefined when the site sent something else or nothing. */
function text(value: unknown, max: number): string | null | undefined {
  if (value === null) return null;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed.slice(0, max);
}

function stockOf(value: unknown): number | null | undefined {
  if (value === null) return null;
  if (typeof value === 'number' && Number.isFinite(value)) return Math.max(0, Math.trunc(value));
  if (typeof value === 'string' && /^\d+$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

function imagesOf(value: unknown): string[] | undefined {
  if (value === null) return [];
  if (!Array.isArray(value)) return undefined;
  const urls = value
    .map((entry) => (typeof entry === 'string' ? entry : isObject(entry) ? (entry.src ?? entry.url) : null))
    .filter((url): url is string => typeof url === 'string' && isHttpUrl(url.trim()))
    .map((url) => url.trim());
  return [...new Set(urls)].slice(0, MAX_IMAGES);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** Descriptions and names from shops are HTML: tags removed, entities decoded, whitespace collapsed. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(br|\/p|\/div|\/li|\/h\d)\s*\/?>/gi, '\n')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+|#39);/gi, (whole, entity: string) => {
      const lower = entity.toLowerCase();
      if (lower.startsWith('#x')) return String.fromCodePoint(parseInt(lower.slice(2), 16));
      if (lower.startsWith('#') && lower !== '#39') return String.fromCodePoint(parseInt(lower.slice(1), 10));
      return ENTITIES[lower] ?? whole;
    })
    .replace(/[ \t\f\v\r]+/g, ' ')
    .replace(/ *\n[\n ]*/g, '\n')
    .trim();
}

function htmlText(value: unknown, max: number): string | null | undefined {
  const raw = text(value, max * 4);
  if (typeof raw !== 'string') return raw;
  const plain = htmlToText(raw);
  return plain === '' ? null : plain.slice(0, max);
}

/** A plain JSON list of feed-shaped items (SPEC §2 fields; `title` accepted for `name`). */
function genericProduct(entry: Json): SiteProduct | null {
  const productId = idOf(entry.id);
  if (productId === null) return null;
  let price: CatalogPrice | null | undefined;
  if (entry.price === null) price = null;
  else if (typeof entry.price === 'number' && Number.isFinite(entry.price) && entry.price >= 0) price = entry.price;
  else if (typeof entry.price === 'string' && entry.price.trim() !== '') price = entry.price.slice(0, MAX_TEXT.price);
  return {
    productId,
    name: 'name' in entry ? text(entry.name, MAX_TEXT.name) : text(entry.title, MAX_TEXT.name),
    price,
    currency: text(entry.currency, MAX_TEXT.currency),
    description: text(entry.description, MAX_TEXT.description),
    sku: text(entry.sku, MAX_TEXT.sku),
    category: text(entry.category, MAX_TEXT.category),
    stock: stockOf(entry.stock),
    images: imagesOf(entry.images),
  };
}

/**
 * Shopify `products.json`: one item per product. Price: the lowest variant price (variant prices are
 * decimal strings, read as numbers); SKU: the first variant's; stock: the variants'
 * `inventory_quantity` summed when given, else 0 when no variant is `available`, else not counted.
 * The public feed has no currency: the item keeps its own.
 */
function shopifyProduct(entry: Json): SiteProduct | null {
  const productId = idOf(entry.id);
  if (productId === null) return null;
  const variants = (arrayOf(entry.variants) ?? []).filter(isObject);
  const prices: CatalogPrice[] = [];
  let currency: string | undefined;
  for (const variant of variants) {
    const raw = isObject(variant.price) ? variant.price.amount : variant.price;
    if (isObject(variant.price) && typeof variant.price.currency_code === 'string')
      currency = variant.price.currency_code;
    const price = typeof raw === 'number' ? raw : typeof raw === 'string' ? parsePriceText(raw) : null;
    if (price !== null) prices.push(price);
  }
  const numeric = prices.filter((p): p is number => typeof p === 'number');
  const price = numeric.length > 0 ? Math.min(...numeric) : (prices[0] ?? null);
  const quantities = variants
    .map((v) => v.inventory_quantity)
    .filter((q): q is number => typeof q === 'number' && Number.isFinite(q));
  const availability = variants.map((v) => v.available).filter((a): a is boolean => typeof a === 'boolean');
  let stock: number | null = null;
  if (quantities.length > 0)
    stock = Math.max(
      0,
      quantities.reduce((sum, q) => sum + Math.trunc(q), 0),
    );
  else if (availability.length > 0 && availability.every((a) => !a)) stock = 0;
  const sku = variants.map((v) => text(v.sku, MAX_TEXT.sku)).find((s): s is string => typeof s === 'string') ?? null;
  return {
    productId,
    name: htmlText(entry.title, MAX_TEXT.name),
    price,
    ...(currency !== undefined ? { currency } : {}),
    description: htmlText(entry.body_html, MAX_TEXT.description),
    sku,
    category: text(entry.product_type, MAX_TEXT.category),
    stock,
    images: imagesOf(entry.images) ?? [],
  };
}

/** Minor units ("129950", 2) → 1299.5, exactly (string arithmetic, no float rounding on the way). */
export function fromMinorUnits(amount: string, minorUnit: number): number | null {
  const digits = amount.trim();
  if (!/^\d+$/.test(digits) || !Number.isInteger(minorUnit) || minorUnit < 0 || minorUnit > 6) return null;
  if (minorUnit === 0) return Number(digits);
  const padded = digits.padStart(minorUnit + 1, '0');
  return Number(`${padded.slice(0, -minorUnit)}.${padded.slice(-minorUnit)}`);
}

/**
 * WooCommerce Store API (`/wp-json/wc/store/v1/products`): prices in minor units with
 * `currency_minor_unit`; `currency_code`; stock 0 when not `is_in_stock`, the `low_stock_remaining`
 * count when given, else not counted.
 */
function wooProduct(entry: Json): SiteProduct | null {
  const productId = idOf(entry.id);
  if (productId === null) return null;
  const prices = isObject(entry.prices) ? entry.prices : {};
  const minor = typeof prices.currency_minor_unit === 'number' ? prices.currency_minor_unit : 0;
  const raw =
    typeof prices.price === 'string' ? prices.price : typeof prices.price === 'number' ? String(prices.price) : null;
  const price = raw === null ? null : (fromMinorUnits(raw, minor) ?? raw);
  let stock: number | null = null;
  if (entry.is_in_stock === false) stock = 0;
  else if (typeof entry.low_stock_remaining === 'number') stock = Math.max(0, Math.trunc(entry.low_stock_remaining));
  const categories = (arrayOf(entry.categories) ?? []).filter(isObject);
  const description =
    htmlText(entry.short_description, MAX_TEXT.description) ||
    htmlText(entry.description, MAX_TEXT.description) ||
    null;
  return {
    productId,
    name: htmlText(entry.name, MAX_TEXT.name),
    price,
    currency: text(prices.currency_code, MAX_TEXT.currency),
    description,
    sku: text(entry.sku, MAX_TEXT.sku),
    category: categories.length > 0 ? htmlText(categories[0]?.name, MAX_TEXT.category) : null,
    stock,
    images: imagesOf(entry.images) ?? [],
  };
}
