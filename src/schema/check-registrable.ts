import { sql, type Transaction } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import { ApiError } from '../errors/api-error.js';
import { invalid } from './normalize-field.js';
import { tableOf } from './table-of.js';
import type { CollectionDef } from './types.js';

/** Corral's own tables (corral_collections, corral_changes…): never served as collections. */
export const SYSTEM_TABLE_PREFIX = 'corral_';

/**
 * Before an unmanaged definition is stored: its table is no other collection's and not one of
 * Corral's own, and it exists with every column the fields name (one `select … where 1 = 0`,
 * which reads no row). Refusals are 400 SCHEMA_INVALID naming the table.
 */
export async function checkRegistrable(trx: Transaction<DynamicDb>, def: CollectionDef, others: readonly CollectionDef[]): Promise<void> {
  const table = tableOf(def);
  if ((def.tableName ?? def.name).toLowerCase().startsWith(SYSTEM_TABLE_PREFIX)) throw invalid(`${table} is one of Corral's own tables`, 'tableName');
  const clash = others.find((other) => other.name !== def.name && tableOf(other).toLowerCase() === table.toLowerCase());
  if (clash !== undefined) throw invalid(`table ${table} is served by collection ${clash.name} already`, 'tableName');
  const columns = def.fields.map((field, index) => sql.ref(field.columnName ?? field.name).as(`c${index}`));
  try {
    await trx.selectFrom(table).select(columns).where(sql<boolean>`1 = 0`).execute();
  } catch (error) {
    const message = `table ${table} does not exist, or lacks one of the columns ${def.fields.map((field) => field.columnName ?? field.name).join(', ')}`;
    throw new ApiError('SCHEMA_INVALID', message, { field: 'tableName', cause: error });
  }
}
