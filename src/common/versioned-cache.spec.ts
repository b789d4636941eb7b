import { describe, expect, it } from '@jest/globals';
import { VersionedCache } from './versioned-cache.js';

describe('VersionedCache', () => {
  it('loads once per version, and again for a newer one', async () => {
    const cache = new VersionedCache<string>();
    let loads = 0;
    const load = (v: string) => async () => `${v}#${++loads}`;
    expect(await Promise.all([cache.get(1, 3, load('a')), cache.get(1, 3, load('b'))])).toEqual(['a#1', 'a#1']);
    expect(await cache.get(1, 2, load('c'))).toBe('a#1');
    expect(await cache.get(1, 4, load('d'))).toBe('d#2');
    expect(await cache.peek(1)).toBe('d#2');
    expect(cache.peek(2)).toBeNull();
  });

  it('a caller waiting on a load that failed loads again with its own', async () => {
    const cache = new VersionedCache<string>();
    const failing = cache.get(1, 1, async () => {
      throw new Error('that transaction failed');
    });
    const waiting = cache.get(1, 1, async () => 'own load');
    await expect(failing).rejects.toThrow('that transaction failed');
    await expect(waiting).resolves.toBe('own load');
    expect(await cache.get(1, 1, async () => 'not needed')).toBe('own load');
  });
});
