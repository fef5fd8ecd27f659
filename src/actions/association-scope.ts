import { parseKeys } from '../plan/bind-keys.js';
import type { Relation } from '../schema/collection.js';
import { loadSource, type AssociationSource } from '../store/association-source.js';
import type { UnitOfWork } from '../store/unit-of-work.js';
import type { ActionContext } from './action-context.js';

/**
 * The source item named in the path, read in `unit` (a read unit unless given) under the
 * caller's `action` scope of the source (`update` when the source's own links change). 404 when missing.
 */
export function loadScope(ctx: ActionContext, relation: Relation, unit: UnitOfWork = ctx.store.read(ctx), action: 'view' | 'update' = 'view'): Promise<AssociationSource> {
  return loadSource(unit, relation, ctx.request.path.sourceKey!, action);
}

/**
 * The anchor of a hasOne/hasMany association when the path key is the relation's sourceKey:
 * known without reading the source row. Otherwise undefined (the source must be read).
 */
export function anchorFromPath(ctx: ActionContext, relation: Relation): unknown {
  if (relation.type !== 'hasMany' && relation.type !== 'hasOne') return undefined;
  if (relation.sourceColumn !== relation.source.key) return undefined;
  return parseKeys(relation.source, ctx.request.path.sourceKey!)[0];
}
