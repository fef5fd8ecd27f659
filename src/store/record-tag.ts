import { ApiError } from '../errors/api-error.js';
import { entityTag, matches, recordBody, type TagCondition } from '../request/entity-tag.js';
import { bindReadShape } from '../plan/bind-read-shape.js';
import type { FilterNode } from '../plan/filter-node.js';
import type { Collection } from '../schema/collection.js';
import { readRows, selectedFields, toItems } from './read-rows.js';
import type { UnitOfWork } from './unit-of-work.js';
import { selectWhere } from './write-rows.js';

/**
 * If-Match on a write of one record, inside the write's unit before anything is written: the
 * row is locked (FOR UPDATE where the database has row locks), read as `GET` without fields or
 * appends would read it under the caller's view grant, and its entity tag compared with the
 * condition. A mismatch, or no record the caller can see, is 412 PRECONDITION_FAILED; the
 * unit then rolls back with nothing written.
 */
export async function requireRecordTag(unit: UnitOfWork, collection: Collection, where: FilterNode, condition: TagCondition): Promise<void> {
  await selectWhere(unit, collection, [collection.key], where, true);
  const shape = bindReadShape(collection, undefined, undefined, undefined);
  const rows = await readRows(unit, { collection, where, select: selectedFields(shape), order: [], limit: 1 });
  const [item] = rows.length === 0 ? [] : await toItems(unit, collection, shape, rows);
  if (item === undefined) throw new ApiError('PRECONDITION_FAILED', `no ${collection.name} record matches, so If-Match fails`);
  if (!matches(condition, entityTag(recordBody(item)))) {
    throw new ApiError('PRECONDITION_FAILED', `the ${collection.name} record changed since the entity tag given in If-Match`);
  }
}
