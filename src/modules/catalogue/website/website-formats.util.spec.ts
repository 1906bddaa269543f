import { describe, expect, it } from '@jest/globals';
import { detectFormat, fromMinorUnits, htmlToText, parsePage } from './website-formats.util';

describe('website formats', () => {
  it('detects Shopify, WooCommerce and feed-shaped lists (AUTO)', () => {
    expect(detectFormat({ products: [{ id: 1, variants: [] }] })).toBe('SHOPIFY');
    expect(detectFormat([{ id: 1, prices: { price: '100', currency_minor_unit: 2 } }])).toBe('WOOCOMMERCE');
    expect(detectFormat([{ id: 1, name: 'x' }])).toBe('GENERIC');
    expect(detectFormat({ items: [{ id: 1 }] })).toBe('GENERIC');
    expect(detectFormat({ data: [{ id: 1 }] })).toBe('GENERIC');
    expect(detectFormat({ products: [{ id: 1, name: 'no variants' }] })).toBe('GENERIC');
    expect(detectFormat([])).toBeNull();
    expect(detectFormat({ error: 'x' })).toBeNull();
  });

  it('converts minor units exactly', () => {
    expect(fromMinorUnits('129950', 2)).toBe(1299.5);
    expect(fromMinorUnits('5', 2)).toBe(0.05);
    expect(fromMinorUnits('1000', 0)).toBe(1000);
    expect(fromMinorUnits('12345', 3)).toBe(12.345);
    expect(fromMinorUnits('12.5', 2)).toBeNull();
  });

  it('turns shop HTML into text', () => {
    expect(htmlToText('<p>Fish &amp; chips</p><p>&#8364;5 &lt;hot&gt;</p>')).toBe('Fish & chips\n€5 <hot>');
  });

  it('keeps generic fields as sent and leaves out the ones not given', () => {
    const page = parsePage({ items: [{ id: 'a', price: '2 for 1', stock: 3 }, { id: 7 }, { nope: true }] }, 'GENERIC');
    expect(page.skipped).toBe(1);
    expect(page.products[0]).toMatchObject({ productId: 'a', price: '2 for 1', stock: 3 });
    expect(page.products[0]!.name).toBeUndefined();
    expect(page.products[1]).toMatchObject({ productId: '7' });
    expect(page.products[1]!.price).toBeUndefined();
  });
});
