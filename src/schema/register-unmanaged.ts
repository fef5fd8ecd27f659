import type { Transaction } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import { checkRegistrable } from './check-registrable.js';
import { normalizeCollection } from './normalize-collection.js';
import { invalid } from './normalize-field.js';
import { SchemaSnapshot } from './schema-snapshot.js';
import type { SchemaWork } from './schema-work.js';
import type { CollectionDef, Dialect } from './types.js';

type Parsed = ReturnType<typeof normalizeCollection>;

/** Definitions with `managed: false`, normalized (SCHEMA_INVALID otherwise). */
export function parseUnmanaged(inputs: readonly unknown[]): Parsed[] {
  return inputs.map((input) => {
    if (!isRecord(input) || input.managed !== false) throw invalid('registerUnmanaged takes definitions with managed: false');
    return normalizeCollection(input);
  });
}

/**
 * Records on `work` the registration of definitions over existing tables: each table and its
 * columns checked to exist, new ones created, existing unmanaged ones replaced in place when
 * `replace` (a re-read catalogue), then the relations (resolved once every collection is there)
 * and indexes. Relations of other collections that point at a replaced collection stay and must
 * still find their key columns (SCHEMA_INVALID otherwise). Returns the definitions as recorded.
 */
export async function registerUnmanaged(trx: Transaction<DynamicDb>, work: SchemaWork, defs: readonly CollectionDef[], parsed: readonly Parsed[], replace: boolean, dialect: Dialect): Promise<CollectionDef[]> {
  const names = parsed.map(({ def }) => def.name);
  const others = defs.filter((other) => !names.includes(other.name));
  for (const { def } of parsed) {
    const existing = defs.find((other) => other.name.toLowerCase() === def.name.toLowerCase());
    if (existing !== undefined && (!replace || existing.name !== def.name)) throw new ApiError('COLLECTION_EXISTS', `collection ${def.name} already exists`, { field: 'name' });
    await checkRegistrable(trx, def, [...others, ...parsed.map((entry) => entry.def)]);
    if (existing === undefined) work.create(def);
    else work.replaceUnmanaged(def);
  }
  for (const { def, relationInputs } of parsed) for (const relation of relationInputs) work.addRelation(def.name, relation);
  for (const { def, indexes } of parsed) if (indexes !== undefined && indexes !== null) work.setIndexes(def.name, indexes);
  try {
    new SchemaSnapshot(-1, work.all(), dialect);
  } catch (error) {
    throw new ApiError('SCHEMA_INVALID', `the new definitions break a relation: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return names.map((name) => work.get(name));
}
