/** Query strings for the fuzz suite: filters, sort, fields, appends, paging, keys and junk. */
import fc from 'fast-check';
import qs from 'qs';
import { COLLECTION_FIELDS, FIELD_NAMES, OPERATORS, RELATION_NAMES, jsonValue, keyText, oddText, scalarValue } from './value-arbitraries.js';

/** A field path in a filter, sort or fields list: a field, an association path, or noise. */
const fieldPathFor = (names: string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...names) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...RELATION_NAMES), fc.constantFrom('id', 'name', 'label', 'text', 'bio', 'nope', 'team')).map(([a, b]) => `${a}.${b}`) },
    { weight: 1, arbitrary: fc.constantFrom(...FIELD_NAMES, 'team.notes.id', 'tags.people.title', 'a..b', '.', '') },
    { weight: 1, arbitrary: oddText },
  );

/** A filter tree: field conditions, operators, $and/$or/$not, association paths, junk. */
const filterFor = (fieldPath: fc.Arbitrary<string>): fc.Arbitrary<unknown> =>
  fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      tie('condition'),
      fc.dictionary(fieldPath, tie('condition'), { maxKeys: 3 }),
      fc.record({ $and: fc.array(tie('node'), { maxLength: 3 }) }),
      fc.record({ $or: fc.array(tie('node'), { maxLength: 3 }) }),
      fc.record({ $not: tie('node') }),
      jsonValue(3),
    ),
    condition: fc.oneof(
      fc.dictionary(fieldPath, scalarValue, { minKeys: 1, maxKeys: 2 }),
      fc.tuple(fieldPath, fc.constantFrom(...OPERATORS), fc.oneof(scalarValue, fc.array(scalarValue, { maxLength: 4 }), jsonValue(2))).map(([f, op, v]) => ({ [f]: { [op]: v } })),
    ),
  })).node;

const nameListFor = (fieldPath: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    fc.array(fieldPath, { maxLength: 4 }).map((names) => names.join(',')),
    fc.array(fc.tuple(fc.boolean(), fieldPath).map(([desc, f]) => (desc ? `-${f}` : f)), { maxLength: 3 }).map((names) => names.join(',')),
  );

const pageNumber = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 5 }).map(String) },
  { weight: 1, arbitrary: fc.oneof(fc.integer({ min: -1, max: 1001 }).map(String), fc.constantFrom('', 'x', '1.5', '1e3', '99999999999', '0')) },
);

/** Mostly a value that is fine, sometimes one that is not. */
const mostly = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>): fc.Arbitrary<T> => fc.oneof({ weight: 5, arbitrary: good }, { weight: 1, arbitrary: bad });

const QUERY_PARAMS = ['filter', 'sort', 'fields', 'except', 'appends', 'page', 'pageSize', 'paginate', 'filterByTk', 'whitelist', 'updateAssociationValues', 'cascade', 'garbage'] as const;

/** One query string for a collection with these fields, mixing the JSON and qs nested forms. */
const queryFor = (names: string[]): fc.Arbitrary<string> => {
  const fieldPath = fieldPathFor(names);
  const filter = filterFor(fieldPath);
  const nameList = nameListFor(fieldPath);
  const parts = fc.record(
      {
        filter: fc.oneof(
          filter.map((f) => `filter=${encodeURIComponent(JSON.stringify(f))}`),
          filter.map((f) => qs.stringify({ filter: f })),
          oddText.map((t) => `filter=${encodeURIComponent(t)}`),
        ),
        sort: nameList.map((s) => `sort=${encodeURIComponent(s)}`),
        fields: nameList.map((s) => `fields=${encodeURIComponent(s)}`),
        except: nameList.map((s) => `except=${encodeURIComponent(s)}`),
        appends: fc.oneof(
          fc.array(fc.constantFrom(...RELATION_NAMES, 'team.id', 'tags.label'), { maxLength: 3 }).map((a) => `appends=${a.join(',')}`),
          fc.array(fieldPath, { maxLength: 3 }).map((a) => qs.stringify({ appends: a }, { arrayFormat: 'brackets' })),
        ),
        page: pageNumber.map((p) => `page=${encodeURIComponent(p)}`),
        pageSize: pageNumber.map((p) => `pageSize=${encodeURIComponent(p)}`),
        paginate: mostly(fc.constantFrom('paginate=false', 'paginate=true', 'simplePaginate=true'), fc.constant('paginate=x')),
        filterByTk: fc.oneof(
          keyText.map((k) => `filterByTk=${encodeURIComponent(k)}`),
          fc.array(keyText, { maxLength: 4 }).map((ks) => qs.stringify({ filterByTk: ks }, { arrayFormat: 'brackets' })),
          fc.array(keyText, { maxLength: 3 }).map((ks) => qs.stringify({ filterByTk: ks }, { arrayFormat: 'indices' })),
        ),
        whitelist: nameList.map((s) => `whitelist=${encodeURIComponent(s)}`),
        updateAssociationValues: fc.constantFrom(...RELATION_NAMES, 'nope').map((s) => `updateAssociationValues=${s}`),
        cascade: mostly(fc.constantFrom('cascade=true', 'cascade=false'), fc.constant('cascade=maybe')),
        garbage: fc.oneof(
          fc.string({ maxLength: 20 }).map((t) => t.replace(/[^\x21-\x7e]|#/gu, (c) => encodeURIComponent(c))),
          fc.constantFrom('a[b][c][d][e][f][g][h][i][j][k][l]=1', 'filter[$and][0][id]=1', 'filter[title][$in][1001]=x', '&&&', '=', 'a=%', '%%', 'page[]=1', 'sort[][x]=1'),
        ),
      },
  );
  return fc
    .tuple(parts, fc.shuffledSubarray([...QUERY_PARAMS], { maxLength: 4 }))
    .map(([values, chosen]) => chosen.map((name) => values[name]).join('&'));
};

export const QUERIES: Record<string, fc.Arbitrary<string>> = Object.fromEntries(Object.entries(COLLECTION_FIELDS).map(([name, names]) => [name, queryFor(names)]));
export const anyQuery = queryFor(FIELD_NAMES);

