import { ApiError } from '../errors/api-error.js';
import type { WriteValues } from '../plan/bind-write-values.js';
import type { Collection, Relation } from '../schema/collection.js';
import type { UnitOfWork } from './unit-of-work.js';
import { selectWhere } from './write-rows.js';
import { stampColumn } from '../schema/stamp-options.js';
import { systemRule } from '../schema/system-rules.js';
import { checkAttachmentTypes } from './attachment-accept.js';

/**
 * The same answer for a link target that does not exist and one the caller cannot see, so a
 * write is no oracle for rows outside the caller's `view` grant.
 */
export function missingTarget(relation: Relation, field: string, value: unknown): ApiError {
  return missingRow(relation.target, field, value);
}

function missingRow(target: Collection, field: string, value: unknown): ApiError {
  return new ApiError('REFERENCE_VIOLATION', `${field}: ${target.name} has no record ${String(value)}`, { field, details: { missing: [String(value)] } });
}

/**
 * What a row written with `bound` needs of the caller's grants, checked before it is written:
 * `action` on `collection`, every name the client gave within that action's field set, and
 * the link rule: each key column the client set (`collection.linkColumns`: a belongsTo key, the
 * key column of another collection's hasMany, a junction column) naming a row the caller can
 * view, else the same answer as for a missing row.
 */
export async function checkWrite(unit: UnitOfWork, collection: Collection, action: 'create' | 'update', bound: Pick<WriteValues, 'values' | 'given' | 'server'>): Promise<void> {
  // Rows made by an upload only (attachments): whoever asks, a create from a client body is refused.
  if (action === 'create' && bound.server !== true && systemRule(collection.name)?.uploadOnly === true) {
    throw new ApiError('UPLOAD_REQUIRED', `${collection.name} rows are made by uploading a file (multipart/form-data with the file in a part named file)`);
  }
  stampWriter(unit, collection, action, bound.values);
  // Whoever asks (root included): an attachment field's `accept` list holds on every link path.
  await checkAttachmentTypes(unit, collection, bound.values);
  if (unit.grants.open) return;
  unit.checkWritten(collection, action, bound.given);
  if (collection.linkColumns.size === 0) return;
  for (const [column, targets] of collection.linkColumns) {
    const value = bound.values.get(column);
    if (value === null || value === undefined || !bound.given.includes(column)) continue;
    for (const target of targets) {
      // A target collection without a view restriction: the database's foreign key decides alone.
      if (!unit.scopes.has(target.collection.name)) continue;
      const [row] = await selectWhere(unit, target.collection, [target.field], { kind: 'compare', field: target.field, op: 'eq', value });
      if (row === undefined) throw missingRow(target.collection, column, value);
    }
  }
}

/**
 * Who wrote the row, by the server alone (collection options `createdBy`/`updatedBy`):
 * `createdById` on create, `updatedById` on create and every update, the signed-in user (null
 * without one). bindWriteValues drops a client's values for them, so nobody writes in another's name.
 */
function stampWriter(unit: UnitOfWork, collection: Collection, action: 'create' | 'update', values: Map<string, unknown>): void {
  const columns = action === 'create' ? [stampColumn(collection.def, 'createdBy'), stampColumn(collection.def, 'updatedBy')] : [stampColumn(collection.def, 'updatedBy')];
  for (const column of columns) if (column !== undefined && collection.fields.has(column)) values.set(column, unit.actor);
}
