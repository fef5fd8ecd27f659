import { classifyDriverError } from '../db/driver-error.js';
import { ApiError } from '../errors/api-error.js';
import type { Executor } from '../sql/select-rows.js';
import type { Collection } from '../schema/collection.js';
import { indexName } from '../schema/index-name.js';
import type { ActionContext } from './action-context.js';

/** Attempts of a write whose transaction hit a deadlock or serialization failure. */
export const WRITE_ATTEMPTS = 3;

/**
 * Runs a write in one transaction and turns constraint errors into client errors naming the
 * field. A deadlock rolls back and runs again (up to WRITE_ATTEMPTS), then is 409
 * WRITE_CONFLICT. Anything else propagates (and becomes a logged 500 or 503).
 */
export async function writeTransaction<T>(
  ctx: ActionContext,
  collection: Collection,
  work: (db: Executor) => Promise<T>,
  /** The work is one statement, atomic by itself: skip BEGIN/COMMIT (two round trips). */
  singleStatement = false,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      if (singleStatement) return await work(ctx.database.db);
      return await ctx.database.db.transaction().execute(work);
    } catch (error) {
      if (!(error instanceof ApiError) && classifyDriverError(error, ctx.database.dialect).kind === 'conflict') {
        // SQLite has already waited busy_timeout; the server dialects report deadlocks at once.
        if (attempt < WRITE_ATTEMPTS && ctx.database.dialect !== 'sqlite') {
          await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 10));
          continue;
        }
        throw new ApiError('WRITE_CONFLICT', undefined, { cause: error });
      }
      throw mapConstraintError(error, collection, ctx.database.dialect) ?? error;
    }
  }
}

function fieldOf(collection: Collection, subject: string | undefined): string | undefined {
  if (subject === undefined) return undefined;
  if (collection.fields.has(subject)) return subject;
  // MySQL names the index, not the column.
  return collection.fieldList.find((field) => indexName('uq', collection.name, field.name) === subject)?.name
    ?? (subject === 'PRIMARY' ? collection.primaryKey.name : undefined);
}

export function mapConstraintError(error: unknown, collection: Collection, dialect: Parameters<typeof classifyDriverError>[1]): ApiError | undefined {
  if (error instanceof ApiError) return undefined;
  const { kind, subject } = classifyDriverError(error, dialect);
  const field = fieldOf(collection, subject);
  const extra = field === undefined ? { cause: error } : { cause: error, field };
  switch (kind) {
    case 'unique':
      return new ApiError('UNIQUE_VIOLATION', field === undefined ? 'a record with this value already exists' : `a record with this ${field} already exists`, extra);
    case 'notNull':
      return new ApiError('VALIDATION_FAILED', field === undefined ? 'a required value is missing' : `${field} must not be null`, extra);
    case 'foreignKey':
      return new ApiError('REFERENCE_VIOLATION', undefined, extra);
    case 'range':
      return new ApiError('VALIDATION_FAILED', 'a value is out of range for its column', extra);
    case 'unavailable':
      return new ApiError('DATABASE_UNAVAILABLE', undefined, { cause: error });
    case 'conflict':
      return new ApiError('WRITE_CONFLICT', undefined, { cause: error });
    case 'other':
      return undefined;
  }
}
