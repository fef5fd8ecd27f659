import { sql } from 'kysely';
import { linkColumns, type AppendNode } from '../plan/bind-read-shape.js';
import { selection, type Field, type Item, type Row } from '../schema/collection.js';
import type { Dialect } from '../schema/types.js';
import { TRUE_NODE } from '../plan/filter-node.js';
import { filterToSql } from './filter-sql.js';
import { UNSCOPED, type Executor, type RelatedScope } from './select-rows.js';

/** Keys per IN list; a level of appends takes one statement per this many parent keys. */
export const APPEND_KEYS_PER_QUERY = 5000;
const LINK = '__corral_link';

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

const keyText = (value: unknown): string => String(value);

/**
 * Embeds the associations of `nodes` into `items` (decoded from `rows`, same order): one
 * query per association per level over all parent keys, then the same for the next level.
 */
export async function loadAppends(db: Executor, dialect: Dialect, rows: Row[], items: Item[], nodes: AppendNode[], related: RelatedScope = UNSCOPED): Promise<void> {
  for (const node of nodes) {
    const { relation } = node;
    const target = relation.target;
    const parentColumn = relation.sourceColumn;
    const keys = [...new Map(rows.map((row) => [keyText(row[parentColumn.name]), row[parentColumn.name]])).values()].filter((key) => key !== null && key !== undefined);
    const needed: Field[] = [...new Set([...node.output, ...linkColumns({ appends: node.children }), target.primaryKey])];
    const scope = related(target);
    const childRows: Row[] = [];
    for (const part of chunks(keys, APPEND_KEYS_PER_QUERY)) {
      if (part.length === 0) continue;
      const t = target.table;
      let query = db.selectFrom(t).select(needed.map((field) => selection(field, t)));
      if (relation.type === 'belongsToMany') {
        const through = relation.through.table;
        query = query
          .innerJoin(through, `${through}.${relation.otherKey.column}`, `${t}.${relation.targetColumn.column}`)
          .select(sql.ref(`${through}.${relation.foreignKey.column}`).as(LINK))
          .where(`${through}.${relation.foreignKey.column}`, 'in', part);
      } else {
        const column = relation.targetColumn;
        query = query.select(sql.ref(`${t}.${column.column}`).as(LINK)).where(`${t}.${column.column}`, 'in', part);
      }
      if (scope !== TRUE_NODE) query = query.where((eb) => filterToSql(scope, eb, dialect, t));
      childRows.push(...((await query.orderBy(sql.ref(`${t}.${target.primaryKey.column}`)).execute()) as Row[]));
    }
    const childItems = childRows.map((row) => target.decode(row, node.output));
    if (node.children.length > 0) await loadAppends(db, dialect, childRows, childItems, node.children, related);
    const grouped = new Map<string, Item[]>();
    childRows.forEach((row, index) => {
      const key = keyText(row[LINK]);
      const list = grouped.get(key);
      if (list === undefined) grouped.set(key, [childItems[index]!]);
      else list.push(childItems[index]!);
    });
    rows.forEach((row, index) => {
      const linked = grouped.get(keyText(row[parentColumn.name])) ?? [];
      items[index]![relation.name] = relation.toMany ? linked : (linked[0] ?? null);
    });
  }
}
