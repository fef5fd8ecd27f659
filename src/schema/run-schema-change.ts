import type { FastifyBaseLogger } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import type { DatabaseExecutor } from '../db/database-executor.js';
import type { DialectAdapter } from '../db/dialects/dialect-adapter.js';
import { ApiError } from '../errors/api-error.js';
import { bumpSchemaVersion, readDefinitions } from './schema-store.js';
import { reindexSearch, searchableFields } from './search-table.js';
import type { CollectionDef } from './types.js';

type Trx = Transaction<DynamicDb>;

/** A schema change: DDL and definition rows, given the definitions read inside its transaction. */
export type ApplyChange = (trx: Trx, defs: CollectionDef[]) => Promise<void>;

/**
 * Runs one schema change in the adapter's schema transaction: the version row is bumped
 * first (its lock serializes changes across processes), then the change, then the `$search`
 * reindex. Where DDL commits at once (MySQL), the first bump is visible before the
 * definition row is written: a node polling in between loads the old definitions under the
 * new version and would keep them, so a second bump with the definition row makes it load
 * again. Where foreign keys were off for the change (SQLite), they are checked before commit.
 */
export async function runSchemaChange(executor: DatabaseExecutor, adapter: DialectAdapter, apply: ApplyChange): Promise<void> {
  await adapter.ddl.schemaTransaction(executor, async (trx) => {
    await bumpSchemaVersion(trx);
    await applyAndReindex(trx, apply, adapter);
    if (adapter.ddl.commitsDdl) await bumpSchemaVersion(trx);
    if (await adapter.ddl.foreignKeysBroken(trx)) throw new ApiError('REFERENCE_VIOLATION', 'the change would leave rows pointing at missing records');
  });
}

/**
 * Runs a schema change, then rebuilds the `$search` tokens of every collection whose
 * searchable fields changed (made searchable, no longer searchable, renamed, dropped with
 * their collection), in the same transaction.
 */
async function applyAndReindex(trx: Trx, apply: ApplyChange, adapter: DialectAdapter): Promise<void> {
  const before = await readDefinitions(trx);
  await apply(trx, before);
  const after = new Map((await readDefinitions(trx)).map((def) => [def.name, def]));
  const fields = (def: CollectionDef | undefined) => (def === undefined ? [] : searchableFields(def));
  const signature = (def: CollectionDef | undefined) => (def === undefined ? '' : `${def.filterTargetKey}:${fields(def).join(',')}`);
  const was = new Map(before.map((def) => [def.name, def]));
  for (const name of new Set([...was.keys(), ...after.keys()])) {
    const old = was.get(name);
    const next = after.get(name);
    if (signature(old) === signature(next) || (fields(old).length === 0 && fields(next).length === 0)) continue;
    await reindexSearch(trx, next, name, adapter);
  }
}

/**
 * Runs DDL, turning a database refusal into a client error. Where DDL commits at once
 * (MySQL), a failure runs `undo` for what already happened before the transaction rolls back.
 */
export async function runDdl(adapter: DialectAdapter, log: FastifyBaseLogger, run: () => Promise<void>, undo?: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (adapter.ddl.commitsDdl && undo !== undefined) {
      await undo().catch((undoError: unknown) => {
        log.error({ err: undoError, cause: error }, 'undoing a failed DDL statement failed: the table may hold part of the change');
      });
    }
    const { kind } = adapter.classifyError(error);
    if (kind === 'unavailable') throw new ApiError('DATABASE_UNAVAILABLE', undefined, { cause: error });
    if (kind === 'denied') throw new ApiError('DATABASE_READ_ONLY', 'the database refused this schema change: the role Corral connects as may not change tables', { cause: error });
    if (kind === 'unique') throw new ApiError('UNIQUE_VIOLATION', 'stored rows hold duplicate values for this unique field', { cause: error });
    throw new ApiError('SCHEMA_INVALID', 'the database refused this schema change', { cause: error });
  }
}
