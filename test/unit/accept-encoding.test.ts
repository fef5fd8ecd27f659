import { describe, expect, it } from 'vitest';
import { chooseCoding } from '../../src/http/accept-encoding.js';
import { CompressedCache } from '../../src/http/compressed-cache.js';

describe('chooseCoding', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['identity', undefined],
    ['deflate', undefined],
    ['br', 'br'],
    ['gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['GZIP, BR', 'br'],
    ['gzip;q=1, br;q=0.5', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0, gzip;q=0', undefined],
    ['*', 'br'],
    ['*;q=0.1, br;q=0', 'gzip'],
    ['*;q=0', undefined],
    ['gzip;q=0.8, *;q=0.9', 'br'],
    ['br;q=2, gzip', 'gzip'],
    ['br;q=abc, gzip;q=0.2', 'gzip'],
    ['br ; q=0.5 , gzip ; q=0.4', 'br'],
    ['br;level=5', 'br'],
    [['gzip', 'br;q=0.1'], 'gzip'],
  ] as const)('%j → %s', (header, expected) => {
    expect(chooseCoding(header as string | string[] | undefined)).toBe(expected);
  });

  it('never throws on random headers, and only ever names br or gzip', () => {
    const parts = ['br', 'gzip', '*', 'identity', ';', ',', '=', 'q', '0', '1', '.', ' ', 'x', '5'];
    let seed = 7;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let i = 0; i < 2000; i++) {
      const header = Array.from({ length: next(12) }, () => parts[next(parts.length)]).join('');
      expect([undefined, 'br', 'gzip']).toContain(chooseCoding(header));
    }
  });
});

describe('CompressedCache', () => {
  const bytes = (text: string) => Buffer.from(text);

  it('answers only for the same key and the same source bytes', () => {
    const cache = new CompressedCache(1000);
    cache.set('br"a"', bytes('hello'), bytes('H'));
    expect(cache.get('br"a"', bytes('hello'))?.toString()).toBe('H');
    expect(cache.get('br"a"', bytes('hellO'))).toBeUndefined();
    expect(cache.get('gzip"a"', bytes('hello'))).toBeUndefined();
  });

  it('holds at most its bytes, dropping the least recently used first, and skips entries over an eighth of it', () => {
    const cache = new CompressedCache(80);
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, bytes(key.repeat(8)), bytes(key.repeat(2)));
    expect(cache.bytes).toBe(40);
    cache.get('a', bytes('aaaaaaaa'));
    for (const key of ['e', 'f', 'g', 'h', 'i']) cache.set(key, bytes(key.repeat(8)), bytes(key.repeat(2)));
    expect(cache.bytes).toBeLessThanOrEqual(80);
    expect(cache.get('a', bytes('aaaaaaaa'))).toBeDefined();
    expect(cache.get('b', bytes('bbbbbbbb'))).toBeUndefined();
    cache.set('big', bytes('x'.repeat(20)), bytes('y'));
    expect(cache.get('big', bytes('x'.repeat(20)))).toBeUndefined();
    cache.set('a', bytes('aaaaaaaa'), bytes('A'));
    expect(cache.bytes).toBeLessThanOrEqual(80);
    expect(cache.get('a', bytes('aaaaaaaa'))?.toString()).toBe('A');
  });
});
