import fc from 'fast-check';
import { GRANTED, SCHEMA, type CollectionName } from './access-schema.js';
import { appendsArb, filterArb, maybe, refArb, WORDS } from './read-arbitraries.js';
import type { RequestTemplate } from './request-template.js';

/**
 * Generated writes: create (one, bulk, nested values of every relation type, plain key
 * columns), update and destroy by key and by filter, firstOrCreate/updateOrCreate with
 * filterKeys, association creates and the link actions add/set/remove/toggle.
 */
const word = fc.constantFrom(...WORDS);
const valueArb = (field: string): fc.Arbitrary<unknown> => {
  if (field === 'views' || field === 'rating') return fc.integer({ min: 0, max: 20 });
  if (field === 'ownerId') return fc.constantFrom({ $user: true }, { $user: true }, 1, 7);
  return word;
};

/** A link target: a key (in, out of the view scope, missing), an object with a key, or a nested create. */
function linkValueArb(target: CollectionName, depth: number): fc.Arbitrary<unknown> {
  const key = refArb(target, 'view', true);
  return fc.oneof(
    { arbitrary: key, weight: 4 },
    { arbitrary: fc.tuple(key, valuesArb(target)).map(([id, values]) => ({ id, ...values })), weight: 1 },
    { arbitrary: bodyArb(target, depth + 1), weight: depth < 1 ? 2 : 0 },
  );
}

const valuesArb = (collection: CollectionName): fc.Arbitrary<Record<string, unknown>> =>
  fc.subarray([...SCHEMA[collection].writable]).chain((fields) => fc.tuple(...fields.map(valueArb)).map((values) => Object.fromEntries(fields.map((f, i) => [f, values[i]]))));

/** A create/update body: some writable fields, some relation values, perhaps a plain key column. */
export function bodyArb(collection: CollectionName, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const relations = depth >= 2 ? [] : SCHEMA[collection].relations;
  const relationValues = relations.map((relation) => {
    const toMany = relation.kind === 'hasMany' || relation.kind === 'belongsToMany';
    const value: fc.Arbitrary<unknown> = toMany ? fc.array(linkValueArb(relation.target, depth), { maxLength: 2 }) : fc.oneof({ arbitrary: linkValueArb(relation.target, depth), weight: 4 }, { arbitrary: fc.constant(null), weight: 1 });
    // belongsTo links may also come as the plain key column (`authorId`, `postId`).
    const asColumn = relation.kind === 'belongsTo' ? fc.boolean() : fc.constant(false);
    return maybe(fc.tuple(value, asColumn, refArb(relation.target, 'view', true)), 50).map((entry) =>
      entry === undefined ? {} : entry[1] ? { [relation.foreignKey]: entry[2] } : { [relation.name]: entry[0] },
    );
  });
  return fc.tuple(valuesArb(collection), ...relationValues).map(([values, ...links]) => Object.assign({}, values, ...links));
}

const tag = (collection: CollectionName, probes: string[]): Array<readonly [CollectionName, string]> => probes.map((p) => [collection, p] as const);
const uavArb = (collection: CollectionName): fc.Arbitrary<Record<string, string>> =>
  SCHEMA[collection].relations.length === 0 ? fc.constant({}) : maybe(fc.subarray(SCHEMA[collection].relations.map((r) => r.name), { minLength: 1 }), 30).map((names) => (names === undefined ? {} : { updateAssociationValues: names.join(',') }) as Record<string, string>);
const appendsQuery = (collection: CollectionName): fc.Arbitrary<Record<string, string>> => appendsArb(collection).map((a) => (a === undefined ? {} : { appends: a }) as Record<string, string>);

function createArb(collection: CollectionName): fc.Arbitrary<RequestTemplate> {
  return fc.tuple(fc.oneof({ arbitrary: bodyArb(collection), weight: 4 }, { arbitrary: fc.array(bodyArb(collection), { minLength: 2, maxLength: 2 }), weight: 1 }), appendsQuery(collection)).map(([body, query]) => ({ family: 'create', method: 'POST', path: [`${collection}:create`], query, body, answers: collection, kind: 'write', probes: [] }));
}

function updateArb(collection: CollectionName): fc.Arbitrary<RequestTemplate> {
  const target = fc.oneof(refArb(collection, 'update', true).map((ref) => ({ by: 'key', query: { filterByTk: ref }, probes: [] as string[] })), filterArb(collection).map((f) => ({ by: 'filter', query: { filter: f.filter }, probes: f.probes })));
  return fc.tuple(target, bodyArb(collection), uavArb(collection), appendsQuery(collection)).map(([t, body, uav, appends]) => ({ family: `update:${t.by}`, method: 'POST', path: [`${collection}:update`], query: { ...t.query, ...uav, ...appends }, body, answers: collection, kind: 'write', probes: tag(collection, t.probes) }));
}

function destroyArb(collection: CollectionName): fc.Arbitrary<RequestTemplate> {
  const target = fc.oneof(refArb(collection, 'destroy', true).map((ref) => ({ by: 'key', query: { filterByTk: ref }, probes: [] as string[] })), filterArb(collection).map((f) => ({ by: 'filter', query: { filter: f.filter }, probes: f.probes })));
  return target.map((t) => ({ family: `destroy:${t.by}`, method: 'POST', path: [`${collection}:destroy`], query: t.query, kind: 'none', probes: tag(collection, t.probes) }));
}

/** firstOrCreate/updateOrCreate looking up one writable field, by a value some row has (any scope) or a new one. */
function orCreateArb(collection: CollectionName): fc.Arbitrary<RequestTemplate> | undefined {
  const writable = SCHEMA[collection].writable;
  if (writable.length === 0) return undefined;
  return fc.tuple(fc.constantFrom('firstOrCreate', 'updateOrCreate'), fc.constantFrom(...writable), fc.constantFrom('in', 'out', 'any', 'missing'), fc.nat(50), bodyArb(collection)).map(([action, key, pick, n, body]) => ({
    family: action,
    method: 'POST',
    path: [`${collection}:${action}`],
    query: { filterKeys: key },
    body: { ...body, [key]: { $ref: collection, scope: 'view', pick, n, field: key } },
    answers: collection,
    kind: 'write',
    probes: tag(collection, [key]),
  }));
}

/** Association creates and link actions below a source row. */
function associationWriteArb(collection: CollectionName): fc.Arbitrary<RequestTemplate> | undefined {
  const relations = SCHEMA[collection].relations;
  if (relations.length === 0) return undefined;
  return fc.constantFrom(...relations).chain((relation) => {
    const toMany = relation.kind === 'hasMany' || relation.kind === 'belongsToMany';
    const actions = toMany ? ['create', 'add', 'set', 'remove', 'toggle'] : ['create', 'set', 'remove'];
    const keys = toMany ? fc.array(refArb(relation.target, 'view', true), { minLength: 1, maxLength: 2 }) : refArb(relation.target, 'view', true);
    return fc.tuple(fc.constantFrom(...actions), refArb(collection, 'update', false, true), keys, bodyArb(relation.target, 1)).map(([action, source, key, body]): RequestTemplate =>
      action === 'create'
        ? { family: 'assoc:create', method: 'POST', path: [`${collection}/`, source, `/${relation.name}:create`], query: {}, body, answers: relation.target, kind: 'write', probes: [] }
        : { family: `link:${action}`, method: 'POST', path: [`${collection}/`, source, `/${relation.name}:${action}`], query: {}, ...(action === 'remove' && !toMany ? {} : { body: key }), kind: 'none', probes: [] },
    );
  });
}

export function writeArb(): fc.Arbitrary<RequestTemplate> {
  const per = GRANTED.flatMap((c) => [createArb(c), updateArb(c), destroyArb(c), orCreateArb(c), associationWriteArb(c)].filter((a): a is fc.Arbitrary<RequestTemplate> => a !== undefined));
  return fc.oneof(...per);
}
