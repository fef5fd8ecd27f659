import type { DatabaseConfig } from '../config/config.js';
import type { DatabaseTimeouts } from '../db/database.js';
import { classifyDriverError } from '../db/driver-error.js';
import { openReadOnly } from '../db/open-read-only.js';
import { exportSchema, type SchemaFile } from './schema-export.js';
import { COLLECTIONS_TABLE, readDefinitions } from './schema-store.js';

/**
 * The schema file of an existing Corral database, read without changing anything: no system
 * table, no root user, no journal-mode switch. `corral schema export` runs this instead of
 * starting a server, so pointing it at a mistyped path or at a database Corral never used is
 * a one-line error (thrown), never a new database.
 */
export async function readSchemaFile(config: DatabaseConfig, timeouts: DatabaseTimeouts): Promise<SchemaFile> {
  const db = await openReadOnly(config, timeouts);
  try {
    return exportSchema(await readDefinitions(db.kysely));
  } catch (error) {
    if (classifyDriverError(error, config.dialect).kind === 'unavailable') throw error;
    throw new Error(`${db.label} is not a Corral database (its ${COLLECTIONS_TABLE} table cannot be read)`);
  } finally {
    await db.close();
  }
}
