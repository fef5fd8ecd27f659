import type { TestApi } from '../../support/test-app.js';
import { ALL, SCHEMA, relationOf, type CollectionName } from './access-schema.js';
import { grantOf, type Action, type Grant, type RowFilter } from './grant.js';

export type Row = Record<string, unknown>;
/** Every stored row of every collection, by key, as root reads it. */
export type World = Record<CollectionName, Map<number, Row>>;

/** Root's view of the database: the oracle's truth, read before and after each request. */
export async function readWorld(root: TestApi): Promise<World> {
  const replies = await Promise.all(ALL.map((c) => root.get(`/api/${c}:list?paginate=false&sort=id`)));
  const world = {} as World;
  ALL.forEach((collection, i) => {
    const reply = replies[i]!;
    if (reply.status !== 200 || !Array.isArray(reply.body?.data)) throw new Error(`root could not read ${collection}: ${reply.status} ${reply.text}`);
    world[collection] = new Map((reply.body.data as Row[]).map((row) => [Number(row.id), row]));
  });
  return world;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The filter's value with `{{$user.id}}` bound. */
const bind = (value: unknown, userId: number): unknown => (value === '{{$user.id}}' ? userId : value);

function compare(actual: unknown, op: string, wanted: unknown): boolean {
  // Two-valued NULL (docs/querying.md): a positive test on NULL is false, a negative one true.
  if (actual === null || actual === undefined) return op === '$ne';
  const a = actual as number | string;
  const b = wanted as number | string;
  switch (op) {
    case '$eq': return a === b;
    case '$ne': return a !== b;
    case '$gt': return a > b;
    case '$lt': return a < b;
    default: throw new Error(`the oracle cannot evaluate ${op}`);
  }
}

/**
 * Evaluates the grant filters this suite generates (grant.ts FILTERS): `$and`/`$or`, a field
 * with a value or `{op: value}`, and a belongsTo relation with a nested filter, read from `world`.
 */
export function matches(filter: RowFilter, collection: CollectionName, row: Row, world: World, userId: number): boolean {
  return Object.entries(filter).every(([key, value]) => {
    // An `:own` grant (grant.ts): rows the caller created; none in a collection without createdById.
    if (key === '$own') return SCHEMA[collection].columns.includes('createdById') && row.createdById === userId;
    if (key === '$or') return (value as RowFilter[]).some((f) => matches(f, collection, row, world, userId));
    if (key === '$and') return (value as RowFilter[]).every((f) => matches(f, collection, row, world, userId));
    const relation = relationOf(collection, key);
    if (relation !== undefined) {
      if (relation.kind !== 'belongsTo') throw new Error(`the oracle cannot evaluate the to-many path ${key}`);
      const target = world[relation.target].get(Number(row[relation.foreignKey]));
      return target !== undefined && matches(value as RowFilter, relation.target, target, world, userId);
    }
    if (!SCHEMA[collection].columns.includes(key)) throw new Error(`the oracle does not know ${collection}.${key}`);
    if (isRecord(value)) return Object.entries(value).every(([op, operand]) => compare(row[key], op, bind(operand, userId)));
    return compare(row[key], '$eq', bind(value, userId));
  });
}

/** Whether `row` of `collection` is within the grant's row scope of `action` (false when the action is refused). */
export function inScope(grant: Grant, action: Action, collection: CollectionName, row: Row | undefined, world: World, userId: number): boolean {
  const g = grantOf(grant, collection, action);
  if (g === undefined || row === undefined) return false;
  return g.filter === undefined || matches(g.filter, collection, row, world, userId);
}

/** The keys of the rows `action` may reach in `collection`. */
export const scopedKeys = (grant: Grant, action: Action, collection: CollectionName, world: World, userId: number): number[] =>
  [...world[collection].values()].filter((row) => inScope(grant, action, collection, row, world, userId)).map((row) => Number(row.id));
