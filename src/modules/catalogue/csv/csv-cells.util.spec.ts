import { describe, expect, it } from '@jest/globals';
import { readImagesCell, readKeywordsCell, readPriceCell, readStockCell } from './csv-cells.util';

describe('CSV cells', () => {
  it('price cells follow DESIGN §14', () => {
    expect(readPriceCell('1,299.50')).toEqual({ ok: true, value: 1299.5 });
    expect(readPriceCell('999')).toEqual({ ok: true, value: 999 });
    expect(readPriceCell('฿ 999')).toEqual({ ok: true, value: '฿ 999' });
    expect(readPriceCell('')).toEqual({ ok: true, value: null });
    expect(readPriceCell('x'.repeat(101)).ok).toBe(false);
  });

  it('stock cells are whole numbers; empty means not counted', () => {
    expect(readStockCell('12')).toEqual({ ok: true, value: 12 });
    expect(readStockCell('1,200')).toEqual({ ok: true, value: 1200 });
    expect(readStockCell('3.0')).toEqual({ ok: true, value: 3 });
    expect(readStockCell(' ')).toEqual({ ok: true, value: null });
    expect(readStockCell('-1').ok).toBe(false);
    expect(readStockCell('2.5').ok).toBe(false);
    expect(readStockCell('lots').ok).toBe(false);
  });

  it('image cells hold several URLs; commas inside a URL survive', () => {
    expect(readImagesCell('https://a.test/1.jpg, https://a.test/2.jpg')).toEqual({
      ok: true,
      value: ['https://a.test/1.jpg', 'https://a.test/2.jpg'],
    });
    expect(readImagesCell('https://a.test/1.jpg|https://a.test/2.jpg ; http://b.test/3.png')).toEqual({
      ok: true,
      value: ['https://a.test/1.jpg', 'https://a.test/2.jpg', 'http://b.test/3.png'],
    });
    expect(readImagesCell('https://cdn.test/w_100,h_100/x.jpg')).toEqual({
      ok: true,
      value: ['https://cdn.test/w_100,h_100/x.jpg'],
    });
    expect(readImagesCell('')).toEqual({ ok: true, value: [] });
    expect(readImagesCell('photo.jpg')).toEqual({ ok: false, error: 'images: "photo.jpg" is not an http(s) URL' });
  });

  it('keyword cells split on , ; |', () => {
    expect(readKeywordsCell('red, mug;gift | ceramic')).toEqual({ ok: true, value: ['red', 'mug', 'gift', 'ceramic'] });
  });
});
