import { normalizeHeader } from 'src/core/csv/csv-format';

/** The item fields a CSV column can fill. */
export const IMPORT_FIELDS = [
  'id',
  'name',
  'price',
  'currency',
  'description',
  'sku',
  'category',
  'stock',
  'images',
  'keywords',
] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];

/** `{header: field | null}` for every header of the file (null: the column is not imported). */
export type ImportMapping = Record<string, ImportField | null>;

/** Fields several columns may fill at once (their cells are joined). */
export const MULTI_COLUMN_FIELDS: readonly ImportField[] = ['images', 'keywords'];

export function isImportField(value: unknown): value is ImportField {
  return typeof value === 'string' && (IMPORT_FIELDS as readonly string[]).includes(value);
}

/**
 * The header-guessing table (docs/catalogue.md shows it). Exact matches of the normalised header,
 * best first: when two columns claim one field, the one earlier in its list wins (WooCommerce's
 * "Regular price" beats "Sale price"; "Categories" beats "Type").
 */
export const HEADER_SYNONYMS: Readonly<Record<ImportField, readonly string[]>> = {
  id: ['id', 'productid', 'externalid', 'itemid', 'handle'],
  name: ['name', 'productname', 'title', 'producttitle', 'itemname', 'product', 'item', 'productnameen'],
  price: [
    'price',
    'unitprice',
    'regularprice',
    'variantprice',
    'retailprice',
    'listprice',
    'sellingprice',
    'saleprice',
  ],
  currency: ['currency', 'currencycode', 'curr', 'ccy'],
  description: [
    'description',
    'productdescription',
    'details',
    'bodyhtml',
    'body',
    'shortdescription',
    'summary',
    'longdescription',
  ],
  sku: [
    'sku',
    'variantsku',
    'productsku',
    'itemsku',
    'code',
    'productcode',
    'itemcode',
    'articlenumber',
    'partnumber',
    'mpn',
  ],
  category: [
    'category',
    'categories',
    'productcategory',
    'collection',
    'collections',
    'department',
    'producttype',
    'type',
  ],
  stock: [
    'stock',
    'quantity',
    'qty',
    'inventory',
    'stockquantity',
    'stocklevel',
    'variantinventoryqty',
    'inventoryquantity',
    'onhand',
    'available',
  ],
  images: [
    'images',
    'image',
    'imageurl',
    'imageurls',
    'imagesrc',
    'imagelink',
    'photo',
    'photos',
    'photourl',
    'picture',
    'pictures',
    'pictureurl',
    'variantimage',
  ],
  keywords: ['keywords', 'keyword', 'tags', 'searchterms', 'searchkeywords'],
};

/** Fallback when no exact match: the normalised header contains one of these (checked in this order). */
export const HEADER_FRAGMENTS: readonly (readonly [ImportField, readonly string[]])[] = [
  ['sku', ['sku']],
  ['price', ['price']],
  ['stock', ['quantity', 'qty', 'stock', 'inventory']],
  ['images', ['image', 'photo', 'picture']],
  ['name', ['name', 'title']],
  ['description', ['description', 'desc']],
  ['category', ['categor']],
  ['currency', ['currency']],
  ['keywords', ['keyword', 'tag']],
];

/** Look like a field but are not it (WooCommerce's "In stock?" is 1/0; Shopify's "Image Position" is a number). */
const NOT_FIELDS = new Set([
  'instock',
  'stockstatus',
  'lowstockamount',
  'backordersallowed',
  'managestock',
  'imageposition',
  'imagealttext',
  'variantcompareatprice',
  'costperitem',
  'taxstatus',
  'giftcard',
]);

/** Headers like "Image 2", "Image URL 3", "Photo1": further image columns. */
const NUMBERED_IMAGE = /^(image|imageurl|imagesrc|photo|picture)\d+$/;

interface Candidate {
  readonly header: string;
  readonly index: number;
  readonly field: ImportField;
  readonly score: number;
}

function candidateFor(header: string, index: number): Candidate | null {
  const key = normalizeHeader(header);
  if (!key || NOT_FIELDS.has(key)) return null;
  for (const field of IMPORT_FIELDS) {
    const rank = HEADER_SYNONYMS[field].indexOf(key);
    if (rank >= 0) return { header, index, field, score: rank };
  }
  if (NUMBERED_IMAGE.test(key)) return { header, index, field: 'images', score: 50 };
  for (const [rank, [field, fragments]] of HEADER_FRAGMENTS.entries()) {
    if (fragments.some((fragment) => key.includes(fragment))) return { header, index, field, score: 100 + rank };
  }
  return null;
}

/**
 * Guesses which field each column fills from its header. Each field goes to its best-scoring column
 * (ties: the leftmost); images and keywords may take several columns. Unrecognised columns map to null.
 */
export function guessMapping(headers: readonly string[]): ImportMapping {
  const mapping: ImportMapping = {};
  for (const header of headers) mapping[header] = null;
  const candidates = headers
    .map((header, index) => candidateFor(header, index))
    .filter((c): c is Candidate => c !== null)
    .sort((a, b) => a.score - b.score || a.index - b.index);
  const taken = new Set<ImportField>();
  for (const candidate of candidates) {
    const multi = MULTI_COLUMN_FIELDS.includes(candidate.field);
    if (!multi && taken.has(candidate.field)) continue;
    mapping[candidate.header] = candidate.field;
    taken.add(candidate.field);
  }
  return mapping;
}
