import { sql } from 'kysely';
import { ApiError } from '../errors/api-error.js';
import { keyFilter } from '../plan/bind-keys.js';
import type { FilterNode } from '../plan/filter-node.js';
import type { Collection, Field, Row } from '../schema/collection.js';
import type { UnitOfWork } from './unit-of-work.js';
import { selectWhere, updateWhere } from './write-rows.js';

/** Where `move` puts the source: before or after the target, or first of all (`sticky`). */
export type MovePlacement = { kind: 'sticky' } | { kind: 'target'; target: unknown; after?: boolean };

async function rowOf(unit: UnitOfWork, collection: Collection, sort: Field, key: unknown, role: string): Promise<Row> {
  const [row] = await selectWhere(unit, collection, [collection.key, sort], keyFilter(collection, [key]), false, 'update');
  if (row === undefined) throw new ApiError('RECORD_NOT_FOUND', `the ${role} ${collection.name} record does not exist`);
  return row;
}

const compare = (field: Field, op: 'gt' | 'gte', value: unknown): FilterNode => ({ kind: 'compare', field, op, value });

/**
 * Moves the row `source` within the order of the `sort` field: the rows between its old and
 * new place shift by one, so the values stay dense and distinct. Without `after`, a row moved
 * down lands after the target and a row moved up before it (NocoBase's rule); `sticky` puts
 * it first. Every shifted row is recorded as updated.
 */
export async function moveRow(unit: UnitOfWork, collection: Collection, sort: Field, source: unknown, placement: MovePlacement): Promise<void> {
  // It rewrites the sort field of the rows it shifts: the update grant must list that field.
  const writable = unit.require(collection, 'update')?.fields;
  if (writable !== undefined && !writable.has(sort.name)) {
    throw new ApiError('FORBIDDEN', `your roles do not allow writing ${sort.name} of ${collection.name}`, { field: 'sortField' });
  }
  const from = await rowOf(unit, collection, sort, source, 'source');
  const sourceKey = keyFilter(collection, [source]);
  const ref = sql.ref(sort.column);
  const numberOf = (row: Row) => (row[sort.name] === null || row[sort.name] === undefined ? null : Number(row[sort.name]));
  if (placement.kind === 'sticky') {
    await updateWhere(unit, collection, { [sort.name]: sql`${ref} + 1` }, { kind: 'isNull', field: sort, negate: true }, 'update');
    await updateWhere(unit, collection, { [sort.name]: 1 }, sourceKey, 'update');
    return;
  }
  const to = await rowOf(unit, collection, sort, placement.target, 'target');
  const s = numberOf(from);
  const t = numberOf(to);
  if (t === null) throw new ApiError('VALIDATION_FAILED', `the target record has no ${sort.name}`, { field: sort.name });
  if (s === t && String(from[collection.key.name]) === String(to[collection.key.name])) return;
  // Take the source out of the order, closing its gap.
  if (s !== null) await updateWhere(unit, collection, { [sort.name]: sql`${ref} - 1` }, compare(sort, 'gt', s), 'update');
  const target = s !== null && t > s ? t - 1 : t;
  const after = placement.after ?? (s !== null && t > s);
  const place = after ? target + 1 : target;
  await updateWhere(unit, collection, { [sort.name]: sql`${ref} + 1` }, { kind: 'and', items: [compare(sort, 'gte', place), { kind: 'not', item: sourceKey }] }, 'update');
  await updateWhere(unit, collection, { [sort.name]: place }, sourceKey, 'update');
}
