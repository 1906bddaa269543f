import type { CatalogPrice } from '../catalog-item.entity';
import type { ExistingWebsiteItem, WebsiteItemRow } from '../catalog-items.repository';
import { formatPriceDisplay } from '../price.util';
import type { SiteProduct } from './website-formats.util';

export interface SyncCounts {
  readonly created: number;
  readonly updated: number;
  readonly offSale: number;
  readonly restored: number;
  readonly unchanged: number;
}

export type SyncPlan =
  | {
      readonly stopped: false;
      /** New and changed items, complete (the upsert writes every column but keywords). */
      readonly rows: WebsiteItemRow[];
      /** Items of this website on sale that the site no longer lists. */
      readonly offSaleIds: string[];
      readonly counts: SyncCounts;
    }
  | {
      readonly stopped: true;
      readonly wouldTakeOffSale: number;
      readonly onSale: number;
      readonly message: string;
    };

function samePrice(a: CatalogPrice | null, b: CatalogPrice | null): boolean {
  return a === b;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

function show(price: CatalogPrice | null): string {
  return formatPriceDisplay(price) ?? 'no price';
}

/** `picked(site, current)`: what the site said, or the item's own value when the site said nothing. */
function picked<T>(site: T | undefined, current: T): T {
  return site === undefined ? current : site;
}

/**
 * Decides everything a sync run does, before anything is written (pure, so the rules are testable
 * one by one). The off-sale guard (SPEC §3/§7): when more than half of the website's items now on
 * sale would go off sale, nothing changes — exactly half is allowed — unless the run was confirmed.
 * A price that differs from the one the site gave last time was edited here: it is replaced, and the
 * item's `notice` says so. Keywords are never part of a plan. An item taken off sale by hand stays off
 * sale even when the site lists it; one the sync took off sale comes back when it reappears.
 */
export function planSync(
  existing: readonly ExistingWebsiteItem[],
  products: readonly SiteProduct[],
  options: { readonly confirmOffSale: boolean; readonly now: Date },
): SyncPlan {
  const byProductId = new Map(existing.map((item) => [item.websiteProductId, item]));
  const listed = new Set(products.map((p) => p.productId));
  const onSale = existing.filter((item) => item.status === 'ON_SALE');
  const vanished = onSale.filter((item) => !listed.has(item.websiteProductId));
  if (vanished.length * 2 > onSale.length && !options.confirmOffSale) {
    return {
      stopped: true,
      wouldTakeOffSale: vanished.length,
      onSale: onSale.length,
      message:
        `Stopped before changing anything: this sync would take ${vanished.length} of the website's ${onSale.length} products on sale off sale, ` +
        `more than half. That usually means the product list link or its key is wrong, or the site returned an incomplete list. ` +
        `If the products really were removed, run the sync again with confirmOffSale: true.`,
    };
  }

  const rows: WebsiteItemRow[] = [];
  let created = 0;
  let updated = 0;
  let restored = 0;
  let unchanged = 0;
  const stamp = options.now.toISOString();
  for (const product of products) {
    const item = byProductId.get(product.productId);
    if (!item) {
      created++;
      const price = product.price ?? null;
      rows.push({
        website_product_id: product.productId,
        name: product.name ?? null,
        price,
        synced_price: price,
        currency: product.currency ?? null,
        description: product.description ?? null,
        sku: product.sku ?? null,
        category: product.category ?? null,
        stock: product.stock ?? null,
        images: product.images ?? [],
        status: 'ON_SALE',
        off_sale_reason: null,
        notice: null,
      });
      continue;
    }
    let notice = item.notice;
    let price = item.price;
    let syncedPrice = item.syncedPrice;
    if (product.price !== undefined) {
      const sitePrice = product.price;
      const editedHere = !samePrice(item.price, item.syncedPrice);
      if (!samePrice(item.price, sitePrice) && editedHere) {
        notice = `The price set here (${show(item.price)}) was replaced by the website's price (${show(sitePrice)}) at the sync of ${stamp}.`;
      }
      price = sitePrice;
      syncedPrice = sitePrice;
    }
    const comesBack = item.status === 'OFF_SALE' && item.offSaleReason === 'WEBSITE';
    const next: WebsiteItemRow = {
      website_product_id: item.websiteProductId,
      name: picked(product.name, item.name),
      price,
      synced_price: syncedPrice,
      currency: picked(product.currency, item.currency),
      description: picked(product.description, item.description),
      sku: picked(product.sku, item.sku),
      category: picked(product.category, item.category),
      stock: picked(product.stock, item.stock),
      images: picked(product.images, item.images),
      status: comesBack ? 'ON_SALE' : item.status,
      off_sale_reason: comesBack ? null : item.offSaleReason,
      notice,
    };
    const changed =
      next.name !== item.name ||
      !samePrice(next.price, item.price) ||
      !samePrice(next.synced_price, item.syncedPrice) ||
      next.currency !== item.currency ||
      next.description !== item.description ||
      next.sku !== item.sku ||
      next.category !== item.category ||
      next.stock !== item.stock ||
      !sameList(next.images, item.images) ||
      next.notice !== item.notice;
    if (comesBack) restored++;
    else if (changed) updated++;
    else unchanged++;
    if (comesBack || changed) rows.push(next);
  }
  return {
    stopped: false,
    rows,
    offSaleIds: vanished.map((item) => item.id),
    counts: { created, updated, offSale: vanished.length, restored, unchanged },
  };
}

/** Products listed twice (pages shifting while we read them): the last listing wins, first position kept. */
export function dedupeProducts(products: readonly SiteProduct[]): SiteProduct[] {
  const byId = new Map<string, SiteProduct>();
  for (const product of products) byId.set(product.productId, product);
  return [...byId.values()];
}
