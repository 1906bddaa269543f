import { describe, expect, it } from '@jest/globals';
import { AppException } from 'src/core/errors/app.exception';
import { decodeCursor, encodeCursor } from './pagination';

describe('keyset cursors', () => {
  it('round-trip and refuse anything else', () => {
    const cursor = encodeCursor(['2026-11-22T10:00:00.000Z', '6f1c7a3e-0000-4000-8000-000000000000']);
    expect(decodeCursor(cursor, 2)).toEqual(['2026-11-22T10:00:00.000Z', '6f1c7a3e-0000-4000-8000-000000000000']);
    expect(() => decodeCursor('bogus', 2)).toThrow(AppException);
    expect(() => decodeCursor(encodeCursor(['only-one']), 2)).toThrow(AppException);
    expect(() => decodeCursor(Buffer.from('{"a":1}').toString('base64url'), 2)).toThrow(AppException);
  });
});
