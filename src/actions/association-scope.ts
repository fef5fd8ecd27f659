import { ApiError } from '../errors/api-error.js';
import { parseKeys } from '../plan/bind-keys.js';
import { FALSE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { Field, Relation, Row } from '../schema/collection.js';
import type { Dialect } from '../schema/types.js';
import { runShape } from '../sql/query-cache.js';
import type { Executor } from '../sql/select-rows.js';
import type { ActionContext } from './action-context.js';

/** A driver value back to the canonical value its field type works with. */
export function canonical(field: Field, raw: unknown, dialect: Dialect): unknown {
  if (raw === null || raw === undefined) return null;
  const wire = field.type.fromDb(raw, dialect, field.def);
  const parsed = field.type.parse(wire, field.def);
  return parsed.ok ? parsed.value : wire;
}

/** The rows of one association of one source item. */
export interface AssociationScope {
  relation: Relation;
  /** The source item's primary key (to change a belongsTo key column). */
  sourcePk: unknown;
  /** The value the relation hangs on: the belongsTo key column, else the source's sourceKey. */
  anchor: unknown;
  /** Target rows inside the association. */
  where: FilterNode;
}

/**
 * Reads the source item named in the path; a missing one is 404, so nothing leaks across sources.
 * Inside a write transaction (`db` is a transaction) the source row is locked first, so writes
 * to one source's association run one after the other: two concurrent hasOne creates cannot
 * both stay linked, and two concurrent adds of one key do not both insert a through row.
 * (SQLite serialises writers itself and has no FOR UPDATE.)
 */
export async function loadScope(ctx: ActionContext, relation: Relation, db: Executor = ctx.database.db): Promise<AssociationScope> {
  const { source } = relation;
  const [key] = parseKeys(source, ctx.request.path.sourceKey!);
  const anchorField = relation.type === 'belongsTo' ? relation.foreignKey : relation.sourceKey!;
  const columns = [...new Set([source.primaryKey.name, anchorField.name])];
  const query = db.selectFrom(source.name).select(columns).where(source.key.name, '=', source.key.type.toDb(key, ctx.database.dialect));
  const lock = db.isTransaction && ctx.database.dialect !== 'sqlite';
  const shape = `scope|${columns.join(',')}|${source.key.name}|${lock}`;
  const [row] = await runShape<Row>(db, source, shape, [source.key.type.toDb(key, ctx.database.dialect)], () => (lock ? query.forUpdate() : query));
  if (row === undefined) throw new ApiError('RECORD_NOT_FOUND', `no ${source.name} record ${ctx.request.path.sourceKey}`);
  const { dialect } = ctx.database;
  const anchor = canonical(anchorField, row[anchorField.name], dialect);
  return { relation, sourcePk: canonical(source.primaryKey, row[source.primaryKey.name], dialect), anchor, where: scopeFilter(relation, anchor) };
}

export function scopeFilter(relation: Relation, anchor: unknown): FilterNode {
  if (anchor === null) return FALSE_NODE;
  switch (relation.type) {
    case 'belongsTo':
      return { kind: 'compare', field: relation.targetKey!, op: 'eq', value: anchor };
    case 'hasOne':
    case 'hasMany':
      return { kind: 'compare', field: relation.foreignKey, op: 'eq', value: anchor };
    case 'belongsToMany':
      return { kind: 'linkedThrough', relation, value: anchor };
  }
}

/**
 * The anchor of a hasOne/hasMany association when the path key is the relation's sourceKey:
 * known without reading the source row. Otherwise undefined (the source must be read).
 */
export function anchorFromPath(ctx: ActionContext, relation: Relation): unknown {
  if (relation.type !== 'hasMany' && relation.type !== 'hasOne') return undefined;
  if (relation.sourceKey !== relation.source.key) return undefined;
  return parseKeys(relation.source, ctx.request.path.sourceKey!)[0];
}
