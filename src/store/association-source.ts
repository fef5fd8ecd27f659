import { ApiError } from '../errors/api-error.js';
import { parseKeys } from '../plan/bind-keys.js';
import { FALSE_NODE, type FilterNode } from '../plan/filter-node.js';
import { selection, type Relation, type Row } from '../schema/collection.js';
import { DIALECT_TRAITS } from '../db/dialects/dialect-traits.js';
import { whereSql } from '../sql/filter-sql.js';
import { canonical } from './canonical.js';
import type { UnitOfWork } from './unit-of-work.js';

/** The rows of one association of one source item. */
export interface AssociationSource {
  relation: Relation;
  /** The source item's primary key (to change a belongsTo key column). */
  sourcePk: unknown;
  /** The value the relation hangs on: the belongsTo key column, else the source's sourceKey. */
  anchor: unknown;
  /** Target rows inside the association. */
  where: FilterNode;
}

/**
 * Reads the source item named in the path (inside the caller's scope of `action` on the source
 * collection: `view` to read or add to the association, `update` to change the source's own
 * links); a missing one is 404, so nothing leaks across sources. Inside a write
 * transaction the source row is locked first, so writes to one source's association run one
 * after the other: two concurrent hasOne creates cannot both stay linked, and two concurrent
 * adds of one key do not both insert a through row. (SQLite serialises writers itself.)
 */
export async function loadSource(unit: UnitOfWork, relation: Relation, sourceKey: string, action: 'view' | 'update'): Promise<AssociationSource> {
  const { source } = relation;
  const { dialect } = unit;
  const [key] = parseKeys(source, sourceKey);
  const anchorField = relation.sourceColumn;
  const columns = [...new Set([source.primaryKey, anchorField])].map((field) => selection(field));
  const where = unit.where(source, { kind: 'compare', field: source.key, op: 'eq', value: key }, action);
  if (action === 'view') unit.require(source, 'view');
  // Changing the source's links writes its association: the update grant's field list must name it (or, for belongsTo, its key column).
  else if (relation.type === 'belongsTo') unit.checkWritten(source, 'update', [relation.name], [relation.foreignKey.name]);
  else unit.checkWritten(source, 'update', [relation.name]);
  const lock = unit.db.isTransaction && DIALECT_TRAITS[dialect].rowLocks;
  const [row] = await unit.shapes.run<Row>(unit.db, source, dialect, (pass) => {
    pass.key += `scope|${columns.join(',')}|${lock}|`;
    const condition = whereSql(where, pass, source.table);
    if (!pass.emit) return undefined;
    const query = unit.db.selectFrom(source.table).select(columns).where(condition);
    return lock ? query.forUpdate() : query;
  });
  if (row === undefined) throw new ApiError('RECORD_NOT_FOUND', `no ${source.name} record ${sourceKey}`);
  const anchor = canonical(anchorField, row[anchorField.name], dialect);
  return { relation, sourcePk: canonical(source.primaryKey, row[source.primaryKey.name], dialect), anchor, where: associationFilter(relation, anchor) };
}

/** The target rows of the association of the source whose anchor value is `anchor`. */
export function associationFilter(relation: Relation, anchor: unknown): FilterNode {
  if (anchor === null) return FALSE_NODE;
  if (relation.type === 'belongsToMany') return { kind: 'linkedThrough', relation, value: anchor };
  return { kind: 'compare', field: relation.targetColumn, op: 'eq', value: anchor };
}
