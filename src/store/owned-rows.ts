import { bindFilter } from '../plan/bind-filter.js';
import { and, FALSE_NODE, or, TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { Collection, Relation } from '../schema/collection.js';
import { stampColumn } from '../schema/stamp-options.js';
import type { Scope } from './scope.js';

const reversed = new WeakMap<Relation, Relation>();

/**
 * The relation from a row of `relation.target` back to the rows that own it (same columns,
 * the other way round), so an `exists` over it asks "some owning row matches". Named
 * `~<owner>.<field>`: the name only keys the compiled statement's shape.
 */
function reverseOf(relation: Relation): Relation {
  let found = reversed.get(relation);
  if (found !== undefined) return found;
  const base = { name: `~${relation.source.name}.${relation.name}`, def: relation.def, source: relation.target, target: relation.source };
  switch (relation.type) {
    case 'belongsToMany':
      found = { ...base, type: 'belongsToMany', toMany: true, through: relation.through, foreignKey: relation.otherKey, otherKey: relation.foreignKey, sourceKey: relation.targetKey, targetKey: relation.sourceKey, sourceColumn: relation.targetKey, targetColumn: relation.sourceKey };
      break;
    case 'hasOne':
    case 'hasMany':
      found = { ...base, type: 'belongsTo', toMany: false, foreignKey: relation.foreignKey, targetKey: relation.sourceKey, sourceColumn: relation.foreignKey, targetColumn: relation.sourceKey };
      break;
    case 'belongsTo':
      found = { ...base, type: 'hasMany', toMany: true, foreignKey: relation.foreignKey, sourceKey: relation.targetKey, sourceColumn: relation.targetKey, targetColumn: relation.foreignKey };
      break;
  }
  reversed.set(relation, found);
  return found;
}

/**
 * The `view` scope of a collection whose rows are seen through the rows that own them
 * (attachments: schema/system-rules.ts): a row is visible when some row of an owning
 * collection (any relation pointing at it) is in the caller's `view` scope of that collection
 * AND the relation's field is in that scope's field list; or when no row links it at all and
 * the caller created it (its own upload, not linked yet). `viewOf` gives the owners' scopes
 * (undefined: unrestricted); `user` is the caller (none: no own rows).
 */
export function ownedRowsScope(collection: Collection, viewOf: (owner: Collection) => Scope | undefined, user: unknown, fields?: ReadonlySet<string>): Scope {
  const owned: FilterNode[] = [];
  const linked: FilterNode[] = [];
  for (const relation of collection.inbound) {
    if (relation.source === collection) continue;
    const back = reverseOf(relation);
    linked.push({ kind: 'exists', relation: back, where: TRUE_NODE });
    const owner = viewOf(relation.source);
    if (owner?.denied === true || (owner?.fields !== undefined && !owner.fields.has(relation.name))) continue;
    owned.push({ kind: 'exists', relation: back, where: owner?.where ?? TRUE_NODE });
  }
  const creator = stampColumn(collection.def, 'createdBy');
  const unlinked: FilterNode = linked.length === 0 ? TRUE_NODE : { kind: 'not', item: or(linked) };
  const mine = creator === undefined || !collection.fields.has(creator) || user === undefined || user === null ? FALSE_NODE : and([bindFilter({ [creator]: { $eq: user } }, collection), unlinked]);
  return { where: or([...owned, mine]), ...(fields === undefined ? {} : { fields }) };
}
