import type { Dialect } from '../schema/types.js';

/** What a dialect can do, asked by the store instead of comparing dialect names. */
export interface DialectTraits {
  /** INSERT/UPDATE/DELETE … RETURNING (MySQL has none: read back or select first). */
  readonly returning: boolean;
  /** SELECT … FOR UPDATE (SQLite serialises writers itself and has none). */
  readonly rowLocks: boolean;
}

export const DIALECT_TRAITS: Record<Dialect, DialectTraits> = {
  sqlite: { returning: true, rowLocks: false },
  postgres: { returning: true, rowLocks: true },
  mysql: { returning: false, rowLocks: true },
};
