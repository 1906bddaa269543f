import { describe, expect, it } from '@jest/globals';
import { type AgentCatalogItem, renderItemForAgent } from './index';

const base: AgentCatalogItem = {
  name: 'Espresso Machine Pro',
  price: 1299.5,
  currency: 'USD',
  description: 'Twin boiler,\n  PID control.',
  sku: 'EM-PRO-1',
  category: 'Coffee',
  stock: 3,
  images: ['https://a.test/1.jpg', 'https://a.test/2.jpg'],
};

describe('renderItemForAgent', () => {
  it('renders every fact on its own line', () => {
    expect(renderItemForAgent(base)).toBe(
      [
        'Espresso Machine Pro',
        'Price: 1,299.50 USD',
        'Stock: 3 in stock',
        'Description: Twin boiler, PID control.',
        'SKU: EM-PRO-1',
        'Category: Coffee',
        'Images: 2',
      ].join('\n'),
    );
  });

  it('says "out of stock" at 0 and nothing about stock when it is not counted', () => {
    expect(renderItemForAgent({ ...base, stock: 0 })).toContain('Stock: out of stock');
    const uncounted = renderItemForAgent({ ...base, stock: null });
    expect(uncounted).not.toMatch(/stock/i);
  });

  it('quotes a string price verbatim, omits absent facts, counts zero images, flags off-sale items', () => {
    const text = renderItemForAgent({
      name: null,
      price: 'from 12,50 €',
      currency: null,
      description: '  ',
      sku: null,
      category: null,
      stock: null,
      images: [],
      status: 'OFF_SALE',
    });
    expect(text).toBe(
      ['Unnamed product', 'Price: from 12,50 €', 'Images: 0', 'Status: off sale (do not offer it)'].join('\n'),
    );
    expect(renderItemForAgent({ ...base, price: null })).not.toContain('Price');
  });

  it('cuts very long descriptions', () => {
    const text = renderItemForAgent({ ...base, description: 'x'.repeat(5_000) });
    const line = text.split('\n').find((l) => l.startsWith('Description: '))!;
    expect(line.length).toBeLessThanOrEqual('Description: '.length + 600);
    expect(line.endsWith('…')).toBe(true);
  });
});
