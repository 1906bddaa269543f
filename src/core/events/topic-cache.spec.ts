import { describe, expect, it, jest } from '@jest/globals';
import { CacheInvalidation, TopicCache } from './cache-invalidation';

/** A loader that counts its calls and returns `value` (or null for "absent"). */
function loader<V>(value: V) {
  const calls = { n: 0 };
  return { calls, load: async () => (calls.n++, value) };
}

describe('TopicCache (served from memory until one of its topics changes)', () => {
  it('serves a value again until any of its topics is bumped, then reads it afresh', async () => {
    const invalidation = new CacheInvalidation(); // no database: trusted, bumps are local
    const cache = new TopicCache<string>(invalidation, ['channels', 'workspace-plans']);
    const { calls, load } = loader('v');
    expect(await cache.get('k', load)).toBe('v');
    expect(await cache.get('k', load)).toBe('v');
    expect(calls.n).toBe(1);
    invalidation.bump('workspace-plans');
    expect(await cache.get('k', load)).toBe('v');
    expect(calls.n).toBe(2);
    invalidation.bump('channels');
    invalidation.bump('channels');
    await cache.get('k', load);
    expect(calls.n).toBe(3);
    invalidation.bump('catalogue'); // not one of its topics
    await cache.get('k', load);
    expect(calls.n).toBe(3);
  });

  it('never keeps "absent"', async () => {
    const cache = new TopicCache<string | null>(new CacheInvalidation(), 'channels');
    const { calls, load } = loader<string | null>(null);
    await cache.get('k', load);
    await cache.get('k', load);
    expect(calls.n).toBe(2);
  });

  it('a primed value is served without a read, until a topic moves; never primed while the transaction wrote the topic', async () => {
    const invalidation = new CacheInvalidation();
    const cache = new TopicCache<string>(invalidation, 'ai-states');
    const { calls, load } = loader('read');
    cache.prime('k', 'primed');
    expect(await cache.get('k', load)).toBe('primed');
    expect(calls.n).toBe(0);
    invalidation.bump('ai-states');
    expect(await cache.get('k', load)).toBe('read');
    expect(calls.n).toBe(1);
    const written = jest.spyOn(invalidation, 'writtenInTransaction').mockReturnValue(true);
    cache.prime('other', 'primed');
    written.mockRestore();
    expect(await cache.get('other', load)).toBe('read');
    expect(calls.n).toBe(2);
  });
});
