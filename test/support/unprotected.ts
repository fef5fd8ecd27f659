import { adapterOf } from '../../src/db/dialects/adapters.js';
import type { Dialect } from '../../src/schema/types.js';
import { dropColumn } from '../../src/schema/ddl.js';
import { updateDefinition } from '../../src/schema/schema-store.js';
import type { SchemaManager } from '../../src/schema/schema-manager.js';
import { tableOf } from '../../src/schema/table-of.js';

/**
 * Drops a built-in field of a system collection, which the schema API refuses (409
 * COLLECTION_PROTECTED, src/schema/protected.ts): for tests that rebuild the layout an
 * earlier version made (a users collection from before `disabled` existed). A schema change
 * like any other: DDL and the definition row in one change, announced to the other workers.
 */
export async function dropBuiltInField(schema: SchemaManager, dialect: Dialect, collection: string, field: string): Promise<void> {
  await schema.changeDefinitions(async (trx, defs) => {
    const def = defs.find((candidate) => candidate.name === collection);
    const column = def?.fields.find((candidate) => candidate.name === field);
    if (def === undefined || column === undefined) throw new Error(`no field ${collection}.${field}`);
    await dropColumn(trx, tableOf(def), column, adapterOf(dialect));
    await updateDefinition(trx, { ...def, fields: def.fields.filter((candidate) => candidate !== column) });
  });
}
