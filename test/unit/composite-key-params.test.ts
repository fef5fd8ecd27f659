import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors/api-error.js';
import { parseQueryParams } from '../../src/request/query-params.js';

/** filterByTk as qs hands it over: scalars and lists as before, named parts as one composite key. */
describe('filterByTk parsing', () => {
  it.each([
    ['a scalar', '7', '7'],
    ['a qs list', ['1', '2'], ['1', '2']],
    ['a JSON list', '[1,2]', [1, 2]],
    ['qs large indexes (an object of digits)', { 30: '1', 31: '2' }, ['1', '2']],
    ['named parts (a composite key)', { order_id: '1', line_no: '2' }, { order_id: '1', line_no: '2' }],
    ['a JSON object (a composite key)', '{"order_id":1,"line_no":2}', { order_id: 1, line_no: 2 }],
    ['a string that only starts with {', '{abc', '{abc'],
  ])('reads %s', (_name, given, expected) => {
    expect(parseQueryParams({ filterByTk: given }).filterByTk).toEqual(expected);
  });

  it.each([
    ['a nested part', { order_id: { $gt: 1 }, line_no: '2' }],
    ['a null part', '{"order_id":null,"line_no":2}'],
  ])('refuses %s with KEY_INVALID', (_name, given) => {
    expect(() => parseQueryParams({ filterByTk: given })).toThrowError(expect.objectContaining({ code: 'KEY_INVALID' }) as ApiError);
  });

  it('refuses more parts than a key has columns', () => {
    const parts = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`c${i}`, '1']));
    expect(() => parseQueryParams({ filterByTk: parts })).toThrowError(expect.objectContaining({ code: 'PARAM_INVALID' }) as ApiError);
  });
});
