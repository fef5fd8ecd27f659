import type { QueryPlan } from '../plan/bind-query.js';
import type { Item } from '../schema/collection.js';
import type { JsonValue } from '../schema/types.js';
import { aggregateRows, queryColumnAlias } from '../sql/aggregate-rows.js';
import type { UnitOfWork } from './unit-of-work.js';

/**
 * The groups of a `query` inside the caller's scopes (the collection's and those of every
 * to-one path), as items keyed by the client's aliases: counts, sums and averages as numbers,
 * min/max and plain dimensions in their field's wire form, date buckets as text.
 */
export async function aggregate(unit: UnitOfWork, plan: QueryPlan): Promise<Item[]> {
  unit.require(plan.collection, 'view');
  const rows = await aggregateRows(unit, { ...plan, where: unit.where(plan.collection, plan.where) }, unit.scopeOf);
  return rows.map((row) => {
    const item: Item = {};
    plan.columns.forEach((column, index) => {
      const raw = row[queryColumnAlias(index)];
      let value: JsonValue = null;
      if (raw !== null && raw !== undefined) {
        if (column.kind === 'dimension') value = column.bucket === undefined ? column.value.field.type.fromDb(raw, unit.dialect, column.value.field.def) : String(raw);
        else if (column.aggregation === 'min' || column.aggregation === 'max') value = column.value!.field.type.fromDb(raw, unit.dialect, column.value!.field.def);
        else value = Number(raw);
      }
      item[column.alias] = value;
    });
    return item;
  });
}
