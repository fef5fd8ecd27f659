import { describe, expect, it } from 'vitest';
import { TtlCache } from '../../src/auth/ttl-cache.js';

describe('TtlCache', () => {
  const fake = () => {
    const clock = { now: 1_000_000, read: () => clock.now };
    return clock;
  };

  it('keeps an entry until its lifetime has passed on the injected clock', () => {
    const clock = fake();
    const cache = new TtlCache<string, number>(1000, 10, clock.read);
    cache.set('a', 1);
    clock.now += 999;
    expect(cache.get('a')).toBe(1);
    expect(cache.remaining('a')).toBe(1);
    clock.now += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('takes a shorter lifetime per entry, never a longer one, and keeps nothing for none', () => {
    const clock = fake();
    const cache = new TtlCache<string, number>(1000, 10, clock.read);
    cache.set('short', 1, 100);
    cache.set('long', 2, 5000);
    cache.set('gone', 3, 0);
    expect(cache.get('gone')).toBeUndefined();
    clock.now += 100;
    expect(cache.get('short')).toBeUndefined();
    expect(cache.get('long')).toBe(2);
    clock.now += 900;
    expect(cache.get('long')).toBeUndefined();
  });

  it('drops the oldest entry past its size, however often it was read', () => {
    const clock = fake();
    const cache = new TtlCache<string, number>(1000, 2, clock.read);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe(2);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('a set renews an entry; delete and clear forget', () => {
    const clock = fake();
    const cache = new TtlCache<string, number>(1000, 10, clock.read);
    cache.set('a', 1);
    clock.now += 800;
    cache.set('a', 2);
    clock.now += 800;
    expect(cache.get('a')).toBe(2);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    cache.set('b', 1);
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
