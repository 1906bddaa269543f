import { describe, expect, it } from '@jest/globals';
import { threadpoolSizeToSet } from './threadpool-settings';

describe('threadpoolSizeToSet', () => {
  it('gives the embedded engine one pool thread', () => {
    expect(threadpoolSizeToSet(true, undefined)).toBe('1');
    expect(threadpoolSizeToSet(true, '')).toBe('1');
  });

  it("leaves the operator's setting and PostgreSQL alone", () => {
    expect(threadpoolSizeToSet(true, '8')).toBeNull();
    expect(threadpoolSizeToSet(false, undefined)).toBeNull();
    expect(threadpoolSizeToSet(false, '2')).toBeNull();
  });
});
