import fc from 'fast-check';
import { GRANTED, SCHEMA, relationOf, type CollectionName } from './access-schema.js';
import type { Action } from './grant.js';
import type { Ref, RequestTemplate } from './request-template.js';

/** Generated reads of every route family: list (all paging forms), get, count, query, association reads, changes:list. */
export const WORDS = ['a', 'mine', 'hidden', 'x', 'news', 'sec-1', 'note-0', 'ann', 'c-ann'] as const;
const word = fc.constantFrom(...WORDS);
const small = fc.integer({ min: 0, max: 20 });

/** `arbitrary` in `percent`% of cases, else undefined. */
export const maybe = <T>(arbitrary: fc.Arbitrary<T>, percent: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 100 - percent }, { arbitrary, weight: percent });

/** A row key: one in the scope, one outside it, any, or a missing one; `usually` names rows in scope more often. */
export const refArb = (collection: CollectionName, scope: Action, compare: boolean, usually = false): fc.Arbitrary<Ref> =>
  fc.record({ pick: usually ? fc.constantFrom('in', 'in', 'in', 'in', 'out', 'any', 'missing') : fc.constantFrom('in', 'in', 'out', 'out', 'any', 'missing'), n: fc.nat(50) }).map(({ pick, n }) => ({ $ref: collection, scope, pick, n, ...(compare ? { compare } : {}) }));

const NUMERIC = new Set(['views', 'ownerId', 'createdById', 'rating', 'authorId', 'postId', 'tagId', 'id']);

/** One-level field paths from `collection`: its columns and `relation.column` of every relation. */
function paths(collection: CollectionName): string[] {
  const own = SCHEMA[collection].columns.filter((c) => c !== 'createdAt' && c !== 'updatedAt');
  const through = SCHEMA[collection].relations.flatMap((r) => SCHEMA[r.target].columns.filter((c) => c !== 'createdAt' && c !== 'updatedAt').map((c) => `${r.name}.${c}`));
  return [...own, ...through];
}

export interface GeneratedFilter {
  readonly filter: Record<string, unknown>;
  readonly probes: string[];
}

const condition = (collection: CollectionName): fc.Arbitrary<GeneratedFilter> =>
  fc.constantFrom(...paths(collection)).chain((path) => {
    const last = path.split('.').at(-1)!;
    const value: fc.Arbitrary<unknown> = NUMERIC.has(last) ? fc.oneof(small.map((v) => ({ $gt: v })), small.map((v) => ({ $lt: v }))) : fc.oneof(word, word.map((v) => ({ $ne: v })), word.map((v) => ({ $includes: v })));
    return value.map((v) => ({ filter: { [path]: v }, probes: [path] }));
  });

/** A filter on own fields and association paths, or a relation's `$exists`. */
export function filterArb(collection: CollectionName): fc.Arbitrary<GeneratedFilter> {
  const relations = SCHEMA[collection].relations;
  const exists: fc.Arbitrary<GeneratedFilter>[] = relations.length === 0 ? [] : [fc.constantFrom(...relations).map((r) => ({ filter: { [r.name]: { $exists: true } }, probes: [r.name] }))];
  return fc.oneof(
    { arbitrary: condition(collection), weight: 3 },
    { arbitrary: fc.tuple(condition(collection), condition(collection)).map(([a, b]) => ({ filter: { $or: [a.filter, b.filter] }, probes: [...a.probes, ...b.probes] })), weight: 1 },
    ...exists.map((arbitrary) => ({ arbitrary, weight: 1 })),
  );
}

/** `fields`/`except` lists: columns, relation names and `relation.column` paths. */
const fieldListArb = (collection: CollectionName): fc.Arbitrary<string> =>
  fc.subarray([...SCHEMA[collection].columns, ...SCHEMA[collection].relations.map((r) => r.name), ...paths(collection).filter((p) => p.includes('.'))], { minLength: 1, maxLength: 4 }).map((list) => list.join(','));

/** `appends`: relations, and two-level paths through them. */
export function appendsArb(collection: CollectionName): fc.Arbitrary<string | undefined> {
  const names = SCHEMA[collection].relations.flatMap((r) => [r.name, ...SCHEMA[r.target].relations.map((s) => `${r.name}.${s.name}`)]);
  return names.length === 0 ? fc.constant(undefined) : maybe(fc.subarray(names, { minLength: 1, maxLength: 3 }).map((list) => list.join(',')), 45);
}

/** Sorts on own columns and to-one paths. */
function sortArb(collection: CollectionName): fc.Arbitrary<GeneratedFilter & { sort: string }> {
  const toOne = SCHEMA[collection].relations.filter((r) => r.kind === 'belongsTo' || r.kind === 'hasOne').flatMap((r) => SCHEMA[r.target].columns.filter((c) => c !== 'id').map((c) => `${r.name}.${c}`));
  return fc.tuple(fc.constantFrom(...SCHEMA[collection].columns, ...toOne), fc.boolean()).map(([path, down]) => ({ sort: `${down ? '-' : ''}${path}`, filter: {}, probes: [path] }));
}

interface ShapeParams {
  query: Record<string, unknown>;
  probes: string[];
  /** The filter's probes alone (a count drops the rest of the shape). */
  filterProbes: string[];
}

/** fields/except/appends/filter/sort for a read of `collection`. */
function shapeArb(collection: CollectionName, withSort: boolean): fc.Arbitrary<ShapeParams> {
  return fc
    .record({
      fields: maybe(fieldListArb(collection), 25),
      except: maybe(fieldListArb(collection), 15),
      appends: appendsArb(collection),
      filter: maybe(filterArb(collection), 50),
      sort: withSort ? maybe(sortArb(collection), 40) : fc.constant(undefined),
    })
    .map(({ fields, except, appends, filter, sort }) => ({
      query: { ...(fields === undefined ? {} : { fields }), ...(except === undefined ? {} : { except }), ...(appends === undefined ? {} : { appends }), ...(filter === undefined ? {} : { filter: filter.filter }), ...(sort === undefined ? {} : { sort: sort.sort }) },
      probes: [...(filter?.probes ?? []), ...(sort?.probes ?? [])],
      filterProbes: filter?.probes ?? [],
    }));
}

const PAGING = [{}, { page: '2', pageSize: '2' }, { paginate: 'false' }, { cursor: '', pageSize: '2' }, { simplePaginate: 'true', pageSize: '3' }] as const;
const tag = (collection: CollectionName, probes: string[]): Array<readonly [CollectionName, string]> => probes.map((p) => [collection, p] as const);

function listArb(collection: CollectionName): fc.Arbitrary<RequestTemplate> {
  const search = SCHEMA[collection].searchable.length > 0 ? maybe(word, 20) : fc.constant(undefined);
  return fc.tuple(shapeArb(collection, true), fc.constantFrom(...PAGING), search).map(([shape, paging, q]) => ({
    family: 'cursor' in paging ? 'list:cursor' : 'paginate' in paging ? 'list:stream' : q !== undefined ? 'list:q' : 'list',
    method: 'GET',
    path: [`${collection}:list`],
    query: { ...shape.query, ...paging, ...(q === undefined ? {} : { q }) },
    answers: collection,
    kind: 'read',
    probes: tag(collection, [...shape.probes, ...(q === undefined ? [] : SCHEMA[collection].searchable)]),
    followCursor: 'cursor' in paging,
  }));
}

const getArb = (collection: CollectionName): fc.Arbitrary<RequestTemplate> =>
  fc.tuple(shapeArb(collection, false), refArb(collection, 'view', true), fc.boolean()).map(([shape, ref, rest]) => ({
    family: 'get',
    method: 'GET',
    path: rest ? [`${collection}/`, ref] : [`${collection}:get`],
    query: rest ? shape.query : { ...shape.query, filterByTk: ref },
    answers: collection,
    kind: 'read',
    probes: tag(collection, shape.probes),
  }));

const countArb = (collection: CollectionName): fc.Arbitrary<RequestTemplate> =>
  maybe(filterArb(collection), 50).map((filter) => ({ family: 'count', method: 'GET', path: [`${collection}:count`], query: filter === undefined ? {} : { filter: filter.filter }, answers: collection, kind: 'count', probes: tag(collection, filter?.probes ?? []) }));

/** `query`: an optional dimension, count, and an optional max of a column. */
const queryArb = (collection: CollectionName): fc.Arbitrary<RequestTemplate> =>
  fc.record({ dim: maybe(fc.constantFrom(...SCHEMA[collection].columns.filter((c) => c !== 'createdAt' && c !== 'updatedAt')), 60), max: maybe(fc.constantFrom(...SCHEMA[collection].columns), 50), filter: maybe(filterArb(collection), 40) }).map(({ dim, max, filter }) => ({
    family: 'query',
    method: 'POST',
    path: [`${collection}:query`],
    query: {},
    body: { measures: [{ aggregation: 'count', alias: 'n' }, ...(max === undefined ? [] : [{ field: max, aggregation: 'max', alias: 'm' }])], ...(dim === undefined ? {} : { dimensions: [{ field: dim, alias: 'd' }] }), ...(filter === undefined ? {} : { filter: filter.filter }) },
    answers: collection,
    kind: 'query',
    probes: tag(collection, [...(dim === undefined ? [] : [dim]), ...(max === undefined ? [] : [max]), ...(filter?.probes ?? [])]),
  }));

/** Reads below a source row: list/get/count of every relation. */
function associationReadArb(collection: CollectionName): fc.Arbitrary<RequestTemplate> | undefined {
  const relations = SCHEMA[collection].relations;
  if (relations.length === 0) return undefined;
  return fc.constantFrom(...relations).chain((relation) =>
    fc.tuple(shapeArb(relation.target, relation.kind === 'hasMany' || relation.kind === 'belongsToMany'), refArb(collection, 'view', true), fc.constantFrom('list', 'get', 'count'), refArb(relation.target, 'view', true)).map(([shape, source, action, item]): RequestTemplate => {
      const toMany = relation.kind === 'hasMany' || relation.kind === 'belongsToMany';
      const path = action === 'get' && toMany ? [`${collection}/`, source, `/${relation.name}/`, item] : [`${collection}/`, source, `/${relation.name}:${action}`];
      return { family: `assoc:${action}`, method: 'GET', path, query: action === 'count' ? ('filter' in shape.query ? { filter: shape.query.filter } : {}) : shape.query, answers: relation.target, kind: action === 'count' ? 'count' : 'read', probes: tag(relation.target, action === 'count' ? shape.filterProbes : shape.probes), source: collection };
    }),
  );
}

const changesArb: fc.Arbitrary<RequestTemplate> = fc.constantFrom(undefined, ...GRANTED).map((collection) => ({ family: 'changes:list', method: 'GET', path: ['changes:list'], query: { after: { $after: true }, pageSize: '200', ...(collection === undefined ? {} : { collection }) }, kind: 'changes', probes: [] }));

export function readArb(): fc.Arbitrary<RequestTemplate> {
  const per = GRANTED.flatMap((c) => [listArb(c), getArb(c), countArb(c), queryArb(c), ...(associationReadArb(c) === undefined ? [] : [associationReadArb(c)!])]);
  return fc.oneof(...per, changesArb);
}

export { relationOf };
