import { describe, expect, it } from '@jest/globals';
import { formatPriceDisplay, parsePriceText } from './price.util';

describe('formatPriceDisplay (SPEC §2, DESIGN §12)', () => {
  it('groups thousands of whole numbers', () => {
    expect(formatPriceDisplay(1299)).toBe('1,299');
    expect(formatPriceDisplay(0)).toBe('0');
    expect(formatPriceDisplay(999)).toBe('999');
    expect(formatPriceDisplay(1234567)).toBe('1,234,567');
  });

  it('shows decimals with at least two digits, never rounding what was sent', () => {
    expect(formatPriceDisplay(1299.5)).toBe('1,299.50');
    expect(formatPriceDisplay(19.99)).toBe('19.99');
    expect(formatPriceDisplay(0.05)).toBe('0.05');
    expect(formatPriceDisplay(1234.567)).toBe('1,234.567');
  });

  it('shows strings exactly as sent and nothing for no price', () => {
    expect(formatPriceDisplay('1299')).toBe('1299');
    expect(formatPriceDisplay('from ฿1,299 / month')).toBe('from ฿1,299 / month');
    expect(formatPriceDisplay(' 12 ')).toBe(' 12 ');
    expect(formatPriceDisplay(null)).toBeNull();
    expect(formatPriceDisplay(undefined)).toBeNull();
  });
});

describe('parsePriceText (CSV price cells, DESIGN §14)', () => {
  it('reads plain numbers, with optional thousands separators and decimals, as numbers', () => {
    expect(parsePriceText('1299')).toBe(1299);
    expect(parsePriceText('1,299')).toBe(1299);
    expect(parsePriceText('1,299.50')).toBe(1299.5);
    expect(parsePriceText('1,234,567.8')).toBe(1234567.8);
    expect(parsePriceText(' 42.00 ')).toBe(42);
    expect(parsePriceText('0.5')).toBe(0.5);
  });

  it('keeps everything else as the text written', () => {
    expect(parsePriceText('12,50')).toBe('12,50');
    expect(parsePriceText('1,29')).toBe('1,29');
    expect(parsePriceText('1.299,50')).toBe('1.299,50');
    expect(parsePriceText('$12')).toBe('$12');
    expect(parsePriceText('12 USD')).toBe('12 USD');
    expect(parsePriceText('Call us')).toBe('Call us');
    expect(parsePriceText('-5')).toBe('-5');
    expect(parsePriceText('.5')).toBe('.5');
    expect(parsePriceText('1,2345')).toBe('1,2345');
  });

  it('keeps numbers JavaScript cannot hold exactly as text, and an empty cell is no price', () => {
    expect(parsePriceText('12345678901234567890')).toBe('12345678901234567890');
    expect(parsePriceText('')).toBeNull();
    expect(parsePriceText('   ')).toBeNull();
  });
});
