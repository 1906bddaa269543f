import { describe, expect, it } from '@jest/globals';
import type { ExistingWebsiteItem } from '../catalog-items.repository';
import { planSync } from './sync-plan.util';
import type { SiteProduct } from './website-formats.util';

function existing(n: number, overrides: Partial<ExistingWebsiteItem> = {}): ExistingWebsiteItem[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    websiteProductId: `p${i}`,
    name: `P${i}`,
    price: 10,
    syncedPrice: 10,
    currency: 'EUR',
    description: null,
    sku: null,
    category: null,
    stock: null,
    images: [],
    status: 'ON_SALE',
    offSaleReason: null,
    notice: null,
    ...overrides,
  }));
}

function listed(items: readonly ExistingWebsiteItem[]): SiteProduct[] {
  return items.map((i) => ({ productId: i.websiteProductId, name: i.name, price: i.price }));
}

const now = new Date('2026-11-22T10:00:00.000Z');

describe('planSync', () => {
  it('lets exactly half go off sale', () => {
    const items = existing(10);
    const plan = planSync(items, listed(items.slice(0, 5)), { confirmOffSale: false, now });
    expect(plan.stopped).toBe(false);
    if (!plan.stopped) expect(plan.counts).toEqual({ created: 0, updated: 0, offSale: 5, restored: 0, unchanged: 5 });
  });

  it('stops when more than half would go, saying how many and why; confirmOffSale lets it through', () => {
    const items = existing(10);
    const plan = planSync(items, listed(items.slice(0, 4)), { confirmOffSale: false, now });
    expect(plan).toMatchObject({ stopped: true, wouldTakeOffSale: 6, onSale: 10 });
    if (plan.stopped) expect(plan.message).toContain("6 of the website's 10 products on sale off sale, more than half");
    const confirmed = planSync(items, listed(items.slice(0, 4)), { confirmOffSale: true, now });
    expect(confirmed).toMatchObject({ stopped: false, counts: { offSale: 6 } });
  });

  it('counts only items on sale for the guard, and an empty catalogue never stops', () => {
    const items = [
      ...existing(2),
      ...existing(3, { status: 'OFF_SALE', offSaleReason: 'WEBSITE' }).map((i, n) => ({
        ...i,
        websiteProductId: `off${n}`,
      })),
    ];
    expect(planSync(items, listed(items.slice(0, 1)), { confirmOffSale: false, now }).stopped).toBe(false);
    expect(planSync([], [], { confirmOffSale: false, now })).toMatchObject({ stopped: false, counts: { created: 0 } });
    expect(planSync(existing(1), [], { confirmOffSale: false, now }).stopped).toBe(true);
  });

  it('replaces a locally edited price and says so; a price changed on the site needs no notice', () => {
    const [edited] = existing(1, { price: 8 });
    const plan = planSync([edited!], [{ productId: 'p0', price: 12 }], { confirmOffSale: false, now });
    if (plan.stopped) throw new Error('stopped');
    expect(plan.rows[0]).toMatchObject({ price: 12, synced_price: 12 });
    expect(plan.rows[0]!.notice).toBe(
      "The price set here (8) was replaced by the website's price (12) at the sync of 2026-11-22T10:00:00.000Z.",
    );
    const siteChange = planSync(existing(1), [{ productId: 'p0', price: 12 }], { confirmOffSale: false, now });
    if (siteChange.stopped) throw new Error('stopped');
    expect(siteChange.rows[0]).toMatchObject({ price: 12, notice: null });
  });

  it('restores what the sync took off sale, never what was taken off sale by hand; fields the site omits are kept', () => {
    const items = [
      ...existing(1, { status: 'OFF_SALE', offSaleReason: 'WEBSITE' }),
      ...existing(1, { status: 'OFF_SALE', offSaleReason: 'MANUAL', currency: 'USD' }).map((i) => ({
        ...i,
        websiteProductId: 'm',
      })),
    ];
    const plan = planSync(items, [{ productId: 'p0' }, { productId: 'm', stock: 4 }], { confirmOffSale: false, now });
    if (plan.stopped) throw new Error('stopped');
    expect(plan.counts).toMatchObject({ restored: 1, updated: 1 });
    expect(plan.rows.find((r) => r.website_product_id === 'p0')).toMatchObject({
      status: 'ON_SALE',
      off_sale_reason: null,
      price: 10,
      name: 'P0',
    });
    expect(plan.rows.find((r) => r.website_product_id === 'm')).toMatchObject({
      status: 'OFF_SALE',
      stock: 4,
      currency: 'USD',
    });
  });
});
