import { compileCollection, type Collection, type Item } from '../schema/collection.js';
import type { CollectionDef, FieldDef, JsonValue, ScalarType } from '../schema/types.js';
import type { QueryParams } from '../request/query-params.js';
import { bindFilter } from './bind-filter.js';
import { bindReadShape } from './bind-read-shape.js';
import { bindSort } from './bind-sort.js';
import { evaluateFilter } from './evaluate-filter.js';
import { TRUE_NODE } from './filter-node.js';

/** The columns of a list kept in memory (the schema's own rows): name → type. */
export type RowColumns = Readonly<Record<string, ScalarType>>;

/**
 * Describes in-memory rows as a collection, so `filter`, `sort` and `fields` bind with the
 * same planner (and the same 400s) as for stored rows. The key column must be unique.
 */
export function describeRows(name: string, key: string, columns: RowColumns): Collection {
  const fields: FieldDef[] = Object.entries(columns).map(([field, type]) => ({
    name: field,
    type,
    allowNull: field !== key,
    unique: field === key,
    index: false,
    ...(field === key ? { primaryKey: true } : {}),
  }));
  const def: CollectionDef = { name, timestamps: false, autoGenId: false, idType: 'integer', filterTargetKey: key, fields };
  return compileCollection(def, 'sqlite');
}

/** Code point order for strings, false before true, NULL last in both directions (as every list sorts). */
function compare(a: JsonValue | undefined, b: JsonValue | undefined): number {
  const aNull = a === null || a === undefined;
  const bNull = b === null || b === undefined;
  if (aNull || bNull) return aNull === bNull ? 0 : aNull ? 1 : -1;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return Number(a) - Number(b);
}

/** The items of one list answer, and where the page stands (absent for `paginate=false`). */
export interface InMemoryPage {
  items: Item[];
  paging?: { page: number; pageSize: number; count: number } | { page: number; pageSize: number; hasNext: boolean };
}

/** One list answer over rows held in memory: filter, sort, fields/except and the paging modes of any list. */
export function listInMemory(collection: Collection, rows: readonly Item[], params: QueryParams): InMemoryPage {
  const where = params.filter === undefined ? TRUE_NODE : bindFilter(params.filter, collection);
  const shape = bindReadShape(collection, params.fields, params.except);
  const view = (row: Item): Item => {
    const item: Item = {};
    for (const column of collection.fieldList) item[column.name] = row[column.name] ?? null;
    return item;
  };
  let matched = rows.filter((row) => evaluateFilter(where, view(row)));
  if (params.sort !== undefined) {
    const terms = bindSort(collection, params.sort);
    matched = [...matched].sort((a, b) => {
      for (const term of terms) {
        const c = compare(a[term.field.name], b[term.field.name]);
        if (c !== 0) return (term.desc && a[term.field.name] != null && b[term.field.name] != null) ? -c : c;
      }
      return 0;
    });
  }
  const chosen = params.fields !== undefined || params.except !== undefined ? new Set(shape.output.map((field) => field.name)) : undefined;
  const project = (row: Item): Item => (chosen === undefined ? row : Object.fromEntries(Object.entries(row).filter(([name]) => chosen.has(name))));
  const { page, pageSize } = params;
  if (!params.paginate) return { items: matched.map(project) };
  const start = (page - 1) * pageSize;
  const data = matched.slice(start, start + pageSize).map(project);
  if (params.simplePaginate) return { items: data, paging: { page, pageSize, hasNext: matched.length > start + pageSize } };
  return { items: data, paging: { page, pageSize, count: matched.length } };
}
