import type { Collection, Field, LinkTarget, Relation } from './collection.js';

function add(owner: Collection, column: Field, collection: Collection, field: Field): void {
  const columns = owner.linkColumns as Map<string, LinkTarget[]>;
  const list = columns.get(column.name) ?? [];
  if (!list.some((target) => target.collection === collection && target.field === field)) list.push({ collection, field });
  columns.set(column.name, list);
}

/**
 * Fills every collection's `linkColumns`, once per snapshot (after every relation is linked),
 * from each relation, whichever side declares it: a belongsTo's key column on its source, a
 * hasMany/hasOne's key column on its target (`comments.postId` of `posts.comments`), a
 * belongsToMany's two junction columns. The same column is the same link from either side.
 */
export function placeLinkColumns(relations: Iterable<Relation>): void {
  for (const relation of relations) {
    switch (relation.type) {
      case 'belongsTo':
        add(relation.source, relation.foreignKey, relation.target, relation.targetKey);
        break;
      case 'hasOne':
      case 'hasMany':
        add(relation.target, relation.foreignKey, relation.source, relation.sourceKey);
        break;
      case 'belongsToMany':
        add(relation.through, relation.foreignKey, relation.source, relation.sourceKey);
        add(relation.through, relation.otherKey, relation.target, relation.targetKey);
        break;
    }
  }
}
