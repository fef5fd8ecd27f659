import { ApiError } from '../errors/api-error.js';
import { acceptsType, ATTACHMENTS } from '../schema/attachment-field.js';
import type { BelongsToMany, Collection } from '../schema/collection.js';
import type { UnitOfWork } from './unit-of-work.js';
import { selectWhere } from './write-rows.js';

/** An attachment field's junction column and the field's `accept` list. */
interface AcceptedColumn {
  readonly relation: BelongsToMany;
  readonly accept: readonly string[];
}

const columnsOf = new WeakMap<Collection, ReadonlyMap<string, AcceptedColumn>>();

/**
 * The columns of `collection` that name an attachment of a field with an `accept` list: the
 * `attachmentId` column of that field's junction collection (`notes_cover`). Computed once per
 * compiled collection (a new schema snapshot compiles new collections).
 */
function acceptedColumns(collection: Collection): ReadonlyMap<string, AcceptedColumn> {
  let found = columnsOf.get(collection);
  if (found !== undefined) return found;
  const map = new Map<string, AcceptedColumn>();
  for (const [column, targets] of collection.linkColumns) {
    for (const target of targets) {
      if (target.collection.name !== ATTACHMENTS) continue;
      for (const relation of target.collection.inbound) {
        if (relation.type !== 'belongsToMany' || relation.through !== collection || relation.otherKey.name !== column) continue;
        const accept = relation.def.attachment?.accept;
        if (accept !== undefined) map.set(column, { relation, accept });
      }
    }
  }
  found = map;
  columnsOf.set(collection, found);
  return found;
}

/**
 * The `accept` rule on every link path: a row of an attachment field's junction collection
 * (written by a nested value, `:add`/`:set`, `updateAssociationValues`, an import or a create or
 * update of the junction itself) may name only an attachment whose stored type (the server's,
 * sniffed from the bytes on upload) the field accepts; else 415 `FILE_TYPE_NOT_ALLOWED`, as the
 * upload answers, before anything is written. An attachment the caller cannot see is left to
 * the link rule (the same answer as a missing one).
 */
export async function checkAttachmentTypes(unit: UnitOfWork, collection: Collection, values: ReadonlyMap<string, unknown>): Promise<void> {
  const columns = acceptedColumns(collection);
  if (columns.size === 0) return;
  for (const [column, { relation, accept }] of columns) {
    const value = values.get(column);
    if (value === null || value === undefined) continue;
    const attachments = relation.target;
    const mimetype = attachments.fields.get('mimetype');
    if (mimetype === undefined) continue;
    const [row] = await selectWhere(unit, attachments, [mimetype], { kind: 'compare', field: relation.targetKey, op: 'eq', value });
    if (row === undefined) continue;
    const detected = String(row[mimetype.name] ?? '');
    if (acceptsType(accept, detected)) continue;
    throw new ApiError('FILE_TYPE_NOT_ALLOWED', `${relation.name} takes ${accept.join(', ')}; attachment ${String(value)} is ${detected}`, {
      field: relation.name,
      details: { accept: [...accept], detected },
    });
  }
}
