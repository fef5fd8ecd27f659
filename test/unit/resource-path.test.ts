import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors/api-error.js';
import { parseResourcePath } from '../../src/request/resource-path.js';
import { mergeKeys } from '../../src/request/api-request.js';
import { parseQueryParams } from '../../src/request/query-params.js';

/**
 * The parser as first written, on `split('/')`: the model the indexOf parser must agree with
 * on every path (result, or the error code it throws).
 */
function splitModel(path: string): unknown {
  const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
  const ACTION = /^[A-Za-z][A-Za-z0-9]{0,62}$/;
  const nameAndAction = (segment: string) => {
    const colon = segment.indexOf(':');
    const name = colon === -1 ? segment : segment.slice(0, colon);
    if (!NAME.test(name)) return undefined;
    if (colon === -1) return { name };
    const action = segment.slice(colon + 1);
    return ACTION.test(action) ? { name, action } : undefined;
  };
  const decodeKey = (segment: string): string => {
    if (segment === '' || segment.includes(':')) throw new ApiError('ROUTE_NOT_FOUND');
    if (!segment.includes('%')) return segment;
    try {
      return decodeURIComponent(segment);
    } catch {
      throw new ApiError('KEY_INVALID');
    }
  };
  const segments = path.split('/');
  const [first, second, third, fourth] = segments;
  if (first === undefined || segments.length > 4) return undefined;
  const head = nameAndAction(first);
  if (head === undefined) return undefined;
  if (segments.length === 1) return { collection: head.name, ...(head.action ? { action: head.action } : {}) };
  if (segments.length === 2) return { collection: head.name, ...(head.action ? { action: head.action } : {}), key: decodeKey(second!) };
  if (head.action !== undefined) return undefined;
  const sourceKey = decodeKey(second!);
  const tail = nameAndAction(third!);
  if (tail === undefined) return undefined;
  const base = { collection: head.name, sourceKey, association: tail.name, ...(tail.action ? { action: tail.action } : {}) };
  return segments.length === 3 ? base : { ...base, key: decodeKey(fourth!) };
}

const outcome = (parse: (path: string) => unknown, path: string): unknown => {
  try {
    return { value: parse(path) };
  } catch (error) {
    return { code: error instanceof ApiError ? error.code : String(error) };
  }
};

describe('parseResourcePath', () => {
  it('agrees with the split-based model on random paths', () => {
    const piece = fc.constantFrom('posts', 'comments', 'p_1', '1', '42', ':', ':get', ':list', 'get', '%2F', '%3A', '%E2%9C%93', '%zz', '', 'a', '9x', '_');
    const path = fc.array(fc.array(piece, { maxLength: 3 }).map((parts) => parts.join('')), { minLength: 1, maxLength: 6 }).map((segments) => segments.join('/'));
    fc.assert(
      fc.property(path, (p) => {
        expect(outcome(parseResourcePath, p)).toEqual(outcome(splitModel, p));
      }),
      { numRuns: 5000 },
    );
  });

  const CASES: [string, ReturnType<typeof parseResourcePath>][] = [
    ['posts', { collection: 'posts' }],
    ['posts:list', { collection: 'posts', action: 'list' }],
    ['posts:get/1', { collection: 'posts', action: 'get', key: '1' }],
    ['posts/1', { collection: 'posts', key: '1' }],
    ['posts/1/comments', { collection: 'posts', sourceKey: '1', association: 'comments' }],
    ['posts/1/comments:list', { collection: 'posts', sourceKey: '1', association: 'comments', action: 'list' }],
    ['posts/1/comments:get/3', { collection: 'posts', sourceKey: '1', association: 'comments', action: 'get', key: '3' }],
    ['posts/1/comments:update/3', { collection: 'posts', sourceKey: '1', association: 'comments', action: 'update', key: '3' }],
    ['posts/1/comments/3', { collection: 'posts', sourceKey: '1', association: 'comments', key: '3' }],
    ['collections/posts/fields:create', { collection: 'collections', sourceKey: 'posts', association: 'fields', action: 'create' }],
    ['posts/a%2Fb', { collection: 'posts', key: 'a/b' }],
    ['posts:get/a%3Ab', { collection: 'posts', action: 'get', key: 'a:b' }],
    ['posts/%E2%9C%93', { collection: 'posts', key: '✓' }],
    ['', undefined],
    ['posts:', undefined],
    [':list', undefined],
    ['posts:li-st', undefined],
    ['1posts', undefined],
    ['posts:list:x', undefined],
    ['posts:list/1/2', undefined],
    ['posts/1:get', undefined],
    ['posts/1/comments/3/4', undefined],
    ['posts/1/comments:get/3/4', undefined],
  ];
  for (const [path, expected] of CASES) {
    it(`parses ${JSON.stringify(path)}`, () => {
      if (expected === undefined) {
        let result: unknown;
        try {
          result = parseResourcePath(path);
        } catch (error) {
          result = (error as { code?: string }).code;
        }
        expect(result === undefined || result === 'ROUTE_NOT_FOUND').toBe(true);
      } else expect(parseResourcePath(path)).toEqual(expected);
    });
  }

  it('rejects bad percent-encoding with KEY_INVALID', () => {
    expect(() => parseResourcePath('posts/%E0%A4%A')).toThrowError(expect.objectContaining({ code: 'KEY_INVALID' }));
  });
});

describe('mergeKeys', () => {
  it('takes the key from the path or from filterByTk', () => {
    expect(mergeKeys('1', undefined)).toBe('1');
    expect(mergeKeys(undefined, 2)).toBe(2);
    expect(mergeKeys(undefined, ['1', '2'])).toEqual(['1', '2']);
    expect(mergeKeys('1', '1')).toBe('1');
    expect(mergeKeys('1', 1)).toBe('1');
    expect(mergeKeys('1', ['1'])).toBe('1');
  });
  it('rejects different keys with KEY_CONFLICT', () => {
    for (const other of ['2', 2, ['1', '2'], []]) {
      expect(() => mergeKeys('1', other as never)).toThrowError(expect.objectContaining({ code: 'KEY_CONFLICT' }));
    }
  });
});

describe('parseQueryParams', () => {
  it('answers an empty query (its shortcut) as the full parse does', () => {
    for (const headers of [{}, { 'x-timezone': 'Europe/Paris' }, { 'last-event-id': '42' }, { 'x-timezone': '+02:00', 'last-event-id': '7' }]) {
      // A key no parameter reads takes the full parse.
      expect(parseQueryParams({}, headers)).toEqual(parseQueryParams({ unrelated: undefined }, headers));
    }
    expect(parseQueryParams({})).toEqual({ page: 1, pageSize: 20, paginate: true, simplePaginate: false, cascade: false });
  });

  it('has defaults', () => {
    expect(parseQueryParams({})).toEqual({ page: 1, pageSize: 20, paginate: true, simplePaginate: false, cascade: false });
  });
  it('reads count as exact, estimated or none (absent: the default)', () => {
    for (const mode of ['exact', 'estimated', 'none'] as const) expect(parseQueryParams({ count: mode }).count).toBe(mode);
    expect(parseQueryParams({ count: '' }).count).toBeUndefined();
    expect(parseQueryParams({ page: '2' }).count).toBeUndefined();
  });

  it('reads comma lists and arrays alike', () => {
    expect(parseQueryParams({ fields: 'id, title' }).fields).toEqual(['id', 'title']);
    expect(parseQueryParams({ sort: ['-views', 'id'] }).sort).toEqual(['-views', 'id']);
    expect(parseQueryParams({ appends: ['a,b', 'c'] }).appends).toEqual(['a', 'b', 'c']);
  });
  it('reads filterByTk as a key, an array, or a JSON array', () => {
    expect(parseQueryParams({ filterByTk: '7' }).filterByTk).toBe('7');
    expect(parseQueryParams({ filterByTk: ['1', '2'] }).filterByTk).toEqual(['1', '2']);
    expect(parseQueryParams({ filterByTk: '[1,2]' }).filterByTk).toEqual([1, 2]);
    expect(parseQueryParams({ filterByTk: '[not json' }).filterByTk).toBe('[not json');
  });
  it('reads the filter as JSON text or as a nested object', () => {
    expect(parseQueryParams({ filter: '{"a":1}' }).filter).toEqual({ a: 1 });
    expect(parseQueryParams({ filter: { a: { $gt: '1' } } }).filter).toEqual({ a: { $gt: '1' } });
  });
  const BAD: [Record<string, unknown>, string][] = [
    [{ page: '0' }, 'PARAM_INVALID'],
    [{ page: '-1' }, 'PARAM_INVALID'],
    [{ page: '1.5' }, 'PARAM_INVALID'],
    [{ pageSize: '1001' }, 'PARAM_INVALID'],
    [{ paginate: 'nope' }, 'PARAM_INVALID'],
    [{ count: 'planned' }, 'PARAM_INVALID'],
    [{ count: ['exact'] }, 'PARAM_INVALID'],
    [{ fields: { a: 1 } }, 'PARAM_INVALID'],
    [{ filterByTk: [{ a: 1 }] }, 'KEY_INVALID'],
    [{ filterByTk: Array.from({ length: 1001 }, (_, i) => String(i)) }, 'PARAM_INVALID'],
    [{ filter: 'nope' }, 'FILTER_INVALID'],
    [{ filter: 'x'.repeat(16 * 1024 + 1) }, 'FILTER_TOO_COMPLEX'],
    // The limit counts UTF-8 bytes: 8193 two-byte characters are over 16 KiB.
    [{ filter: 'é'.repeat(8 * 1024 + 1) }, 'FILTER_TOO_COMPLEX'],
  ];
  for (const [query, code] of BAD) {
    it(`rejects ${JSON.stringify(query).slice(0, 60)} with ${code}`, () => {
      expect(() => parseQueryParams(query)).toThrowError(expect.objectContaining({ code }));
    });
  }
});
