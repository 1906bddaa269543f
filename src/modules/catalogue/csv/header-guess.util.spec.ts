import { describe, expect, it } from '@jest/globals';
import { normalizeHeader } from 'src/core/csv/csv-format';
import { guessMapping } from './header-guess.util';

describe('guessMapping (CSV header guessing)', () => {
  it('maps the headers named in the issue', () => {
    expect(guessMapping(['Product Name', 'Price', 'Quantity', 'Image URL'])).toEqual({
      'Product Name': 'name',
      Price: 'price',
      Quantity: 'stock',
      'Image URL': 'images',
    });
    expect(guessMapping(['Title', 'Unit price', 'Qty', 'Images'])).toEqual({
      Title: 'name',
      'Unit price': 'price',
      Qty: 'stock',
      Images: 'images',
    });
    expect(guessMapping(['Stock'])).toEqual({ Stock: 'stock' });
  });

  it('ignores case, spaces and punctuation, and finds fields inside longer headers', () => {
    expect(normalizeHeader('  Unit-Price (€) ')).toBe('unitprice');
    expect(
      guessMapping([
        'PRODUCT_NAME',
        'unit price (THB)',
        'Qty on hand',
        'Product description',
        'Item SKU #',
        'Currency code',
      ]),
    ).toEqual({
      PRODUCT_NAME: 'name',
      'unit price (THB)': 'price',
      'Qty on hand': 'stock',
      'Product description': 'description',
      'Item SKU #': 'sku',
      'Currency code': 'currency',
    });
  });

  it('gives each field to its best column, lets images and keywords take several, leaves the rest unmapped', () => {
    expect(
      guessMapping([
        'Name',
        'Sale price',
        'Regular price',
        'Type',
        'Categories',
        'Image 1',
        'Image 2',
        'Tags',
        'Colour',
        'ID',
      ]),
    ).toEqual({
      Name: 'name',
      'Sale price': null,
      'Regular price': 'price',
      Type: null,
      Categories: 'category',
      'Image 1': 'images',
      'Image 2': 'images',
      Tags: 'keywords',
      Colour: null,
      ID: 'id',
    });
  });

  it('reads a Shopify product export and a WooCommerce export sensibly', () => {
    const shopify = guessMapping([
      'Handle',
      'Title',
      'Body (HTML)',
      'Vendor',
      'Type',
      'Tags',
      'Variant SKU',
      'Variant Inventory Qty',
      'Variant Price',
      'Image Src',
      'Image Position',
      'SEO Title',
    ]);
    expect(shopify).toMatchObject({
      Handle: 'id',
      Title: 'name',
      'Body (HTML)': 'description',
      Type: 'category',
      Tags: 'keywords',
      'Variant SKU': 'sku',
      'Variant Inventory Qty': 'stock',
      'Variant Price': 'price',
      'Image Src': 'images',
      'Image Position': null,
      'SEO Title': null,
      Vendor: null,
    });
    const woo = guessMapping([
      'ID',
      'Type',
      'SKU',
      'Name',
      'Short description',
      'Description',
      'In stock?',
      'Stock',
      'Sale price',
      'Regular price',
      'Categories',
      'Images',
    ]);
    expect(woo).toMatchObject({
      ID: 'id',
      Type: null,
      SKU: 'sku',
      Name: 'name',
      'Short description': null,
      Description: 'description',
      'In stock?': null,
      Stock: 'stock',
      'Regular price': 'price',
      Categories: 'category',
      Images: 'images',
    });
  });
});
