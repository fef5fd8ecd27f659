import type { CatalogueForeignKey } from '../db/catalogue/catalogue.js';
import type { IntrospectNote, MappedTable } from './introspect-collections.js';
import { lowerFirst, plural, relationBaseName, singularOf, upperFirst } from './introspect-names.js';
import type { CollectionDef, OnDelete, RelationDef } from './types.js';

/**
 * Foreign keys → relations (docs/existing-databases.md#relations): each single-column foreign
 * key is a belongsTo on its table and a hasMany (hasOne when the column is unique) on the table
 * it points at; a junction table (two foreign keys whose columns are its primary key, nothing
 * else but timestamps) also relates its two ends belongsToMany through it. Names are kept from
 * the previous sync for the same relation, otherwise derived, then numbered on collision.
 */

interface Edge {
  readonly source: MappedTable;
  readonly target: MappedTable;
  readonly foreignKey: string;
  readonly targetKey: string;
  readonly onDelete: OnDelete;
  /** The belongsTo name's first wish. */
  readonly base: string;
}

/** One relation to add to a collection, with its identity across syncs and its name wishes. */
interface Request {
  readonly owner: MappedTable;
  readonly signature: string;
  readonly wishes: string[];
  readonly make: (name: string) => RelationDef;
}

const TIMESTAMP_COLUMN = /^(created|updated|modified|inserted)_?(at|on|date|time)$/i;

const ON_DELETE_OF: Record<CatalogueForeignKey['onDelete'], OnDelete> = {
  CASCADE: 'CASCADE',
  'SET NULL': 'SET NULL',
  RESTRICT: 'RESTRICT',
  'NO ACTION': 'RESTRICT',
  'SET DEFAULT': 'RESTRICT',
};

const TYPE_ORDER: Record<RelationDef['type'], number> = { belongsTo: 0, hasOne: 1, hasMany: 1, belongsToMany: 2 };

export function signatureOf(relation: RelationDef): string {
  switch (relation.type) {
    case 'belongsTo':
      return `belongsTo:${relation.foreignKey}`;
    case 'hasOne':
    case 'hasMany':
      return `${relation.type}:${relation.target}:${relation.foreignKey}`;
    case 'belongsToMany':
      return `belongsToMany:${relation.through ?? ''}:${relation.foreignKey}`;
  }
}

function edgesOf(mapped: readonly MappedTable[], notes: IntrospectNote[]): Edge[] {
  const byTable = new Map(mapped.map((entry) => [entry.table.name, entry]));
  const edges: Edge[] = [];
  for (const source of mapped) {
    for (const fk of source.table.foreignKeys) {
      const where = { table: source.table.name, column: fk.columns.join(', ') };
      if (fk.columns.length !== 1) {
        notes.push({ ...where, reason: `composite foreign key to ${fk.referencedTable}: not a relation (relations join on one column)` });
        continue;
      }
      const target = byTable.get(fk.referencedTable);
      const foreignKey = source.fieldOf.get(fk.columns[0]!);
      const targetKey = target?.fieldOf.get(fk.referencedColumns[0]!);
      if (target === undefined || foreignKey === undefined || targetKey === undefined) {
        notes.push({ ...where, reason: `foreign key to ${fk.referencedTable}, which is not served: not a relation` });
        continue;
      }
      edges.push({ source, target, foreignKey, targetKey, onDelete: ON_DELETE_OF[fk.onDelete], base: relationBaseName(foreignKey) });
    }
  }
  return edges;
}

/** The two edges of a junction table, or undefined when the table is not one. */
function junctionEdges(entry: MappedTable, edges: readonly Edge[]): [Edge, Edge] | undefined {
  const { table } = entry;
  const own = edges.filter((edge) => edge.source === entry);
  if (table.kind !== 'table' || own.length !== 2 || table.foreignKeys.length !== 2 || table.primaryKey.length !== 2) return undefined;
  const keyColumns = new Set(table.primaryKey);
  const fkColumns = table.foreignKeys.map((fk) => fk.columns[0]!);
  if (!fkColumns.every((column) => keyColumns.has(column)) || fkColumns[0] === fkColumns[1]) return undefined;
  if (!table.columns.every((column) => keyColumns.has(column.name) || TIMESTAMP_COLUMN.test(column.name))) return undefined;
  if (own.some((edge) => edge.target.def.view === true)) return undefined;
  const [a, b] = [...own].sort((x, y) => (x.foreignKey < y.foreignKey ? -1 : 1));
  return [a!, b!];
}

function requests(mapped: readonly MappedTable[], edges: readonly Edge[]): Request[] {
  const out: Request[] = [];
  for (const edge of edges) {
    const { source, target, foreignKey, targetKey, onDelete } = edge;
    const stripped = edge.base.toLowerCase() !== foreignKey.toLowerCase();
    const alternative = `${edge.base}${upperFirst(singularOf(target.def.name))}`;
    out.push({
      owner: source,
      signature: `belongsTo:${foreignKey}`,
      wishes: stripped ? [edge.base, alternative] : [alternative],
      make: (name) => ({ name, type: 'belongsTo', target: target.def.name, foreignKey, targetKey, onDelete }),
    });
    const sourceKeyColumn = [...source.fieldOf].find(([, field]) => field === foreignKey)?.[0];
    const oneToOne = sourceKeyColumn !== undefined
      && ((source.table.primaryKey.length === 1 && source.table.primaryKey[0] === sourceKeyColumn) || source.table.uniques.some((unique) => unique.length === 1 && unique[0] === sourceKeyColumn));
    const type = oneToOne ? 'hasOne' : 'hasMany';
    const siblings = edges.filter((other) => other.source === source && other.target === target).length;
    const inverse = oneToOne ? singularOf(source.def.name) : plural(lowerFirst(source.def.name));
    out.push({
      owner: target,
      signature: `${type}:${source.def.name}:${foreignKey}`,
      wishes: siblings > 1 ? [`${inverse}By${upperFirst(edge.base)}`] : [inverse],
      make: (name) => ({ name, type, target: source.def.name, foreignKey, sourceKey: targetKey, onDelete }),
    });
  }
  for (const entry of mapped) {
    const pair = junctionEdges(entry, edges);
    if (pair === undefined) continue;
    for (const [near, far] of [pair, [pair[1], pair[0]] as const]) {
      const self = near.target === far.target;
      const name = self ? plural(far.base) : plural(lowerFirst(far.target.def.name));
      out.push({
        owner: near.target,
        signature: `belongsToMany:${entry.def.name}:${near.foreignKey}`,
        wishes: [name],
        make: (relationName) => ({
          name: relationName, type: 'belongsToMany', target: far.target.def.name, through: entry.def.name,
          foreignKey: near.foreignKey, sourceKey: near.targetKey, otherKey: far.foreignKey, targetKey: far.targetKey, onDelete: 'CASCADE',
        }),
      });
    }
  }
  return out.sort((a, b) => {
    const type = (request: Request) => TYPE_ORDER[request.signature.split(':')[0] as RelationDef['type']];
    return a.owner.def.name < b.owner.def.name ? -1 : a.owner.def.name > b.owner.def.name ? 1 : type(a) - type(b) || (a.signature < b.signature ? -1 : a.signature > b.signature ? 1 : 0);
  });
}

/** Adds the relations to the mapped definitions (and `references` to their key columns). */
export function planRelations(mapped: readonly MappedTable[], previous: ReadonlyMap<string, CollectionDef>, notes: IntrospectNote[]): void {
  const edges = edgesOf(mapped, notes);
  for (const edge of edges) {
    const field = edge.source.def.fields.find((candidate) => candidate.name === edge.foreignKey);
    if (field !== undefined) field.references = { collection: edge.target.def.name, key: edge.targetKey, onDelete: edge.onDelete };
  }
  const all = requests(mapped, edges);
  const named = new Map<Request, string>();
  // Names a previous sync gave the same relation come first, so a new table cannot take them.
  for (const request of all) {
    const before = previous.get(request.owner.table.name)?.relations?.find((relation) => signatureOf(relation) === request.signature);
    if (before !== undefined && request.owner.names.claim(before.name)) named.set(request, before.name);
  }
  for (const request of all) if (!named.has(request)) named.set(request, request.owner.names.take(...request.wishes));
  for (const request of all) request.owner.def.relations!.push(request.make(named.get(request)!));
}
