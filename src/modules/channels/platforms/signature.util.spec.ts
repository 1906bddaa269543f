import { describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import {
  headerValue,
  safeEqual,
  sha256Signature,
  verifyBase64Signature,
  verifySha256Signature,
} from './signature.util';

describe('webhook signatures', () => {
  const body = Buffer.from('{"senderId":"c-1","text":"héllo"}');

  it('verifies sha256=<hex> on the exact bytes, case-insensitively for the hex', () => {
    const good = `sha256=${createHmac('sha256', 'secret').update(body).digest('hex')}`;
    expect(sha256Signature('secret', body)).toBe(good);
    expect(verifySha256Signature(good, 'secret', body)).toBe(true);
    expect(verifySha256Signature(`sha256=${good.slice(7).toUpperCase()}`, 'secret', body)).toBe(true);
    expect(verifySha256Signature(good, 'other', body)).toBe(false);
    expect(verifySha256Signature(good, 'secret', Buffer.from(`${body.toString()} `))).toBe(false);
    expect(verifySha256Signature(good.slice(7), 'secret', body)).toBe(false);
    expect(verifySha256Signature(undefined, 'secret', body)).toBe(false);
  });

  it('verifies LINE base64 signatures', () => {
    const good = createHmac('sha256', 'channel-secret').update(body).digest('base64');
    expect(verifyBase64Signature(good, 'channel-secret', body)).toBe(true);
    expect(verifyBase64Signature(good, 'nope', body)).toBe(false);
  });

  it('compares in constant time without throwing on different lengths', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });

  it('reads either of two header names', () => {
    expect(headerValue({ 'x-b': 'second' }, 'X-A', 'X-B')).toBe('second');
    expect(headerValue({ 'x-a': ['first'] }, 'X-A', 'X-B')).toBe('first');
    expect(headerValue({}, 'X-A')).toBeUndefined();
  });
});
