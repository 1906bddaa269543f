import { describe, expect, it } from '@jest/globals';
import { containsNul, findInputProblem, sanitizeJson } from './input-guard';

describe('input guard (issue 9)', () => {
  it('finds NUL in values and keys with the field path', () => {
    expect(findInputProblem({ a: [{ b: 'x\u0000' }] })).toEqual({ field: 'a.0.b', message: 'must not contain U+0000' });
    expect(findInputProblem({ ['k\u0000']: 1 })?.field).toBe('k\u0000');
    expect(findInputProblem({ a: 'ok' })).toBeNull();
  });

  it('measures depth without recursion (200 000 levels)', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(findInputProblem(deep)?.message).toMatch(/deeper than 64/);
    let ok: unknown = 1;
    for (let i = 0; i < 64; i++) ok = [ok];
    expect(findInputProblem(ok)).toBeNull();
  });

  it('sanitises NUL to U+FFFD in strings and keys, leaving the input untouched', () => {
    const input = { t: 'a\u0000b', list: ['\u0000'], ['k\u0000']: { n: 1 } };
    const out = sanitizeJson(input);
    expect(out).toEqual({ t: 'a\uFFFDb', list: ['\uFFFD'], ['k\uFFFD']: { n: 1 } });
    expect(input.t).toBe('a\u0000b');
    expect(containsNul(input)).toBe(true);
    expect(containsNul(out)).toBe(false);
  });
});
