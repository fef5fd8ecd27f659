/**
 * SQLite only: runs one statement synchronously on the connection, skipping the driver's
 * async queue, when that is safe: a read, or a single autocommit write (atomic by itself).
 * Returns undefined when it is not (a transaction is open on the connection: a read would see
 * its uncommitted rows, a write would join it), and the caller goes the usual way.
 */
export type DirectReader = (sql: string, params: readonly unknown[]) => Record<string, unknown>[] | undefined;

const readers = new WeakMap<object, DirectReader>();
const paused = new WeakSet<object>();

/** Registered by openDatabase for the root query builder (never for a transaction). */
export function registerDirectReader(db: object, reader: DirectReader): void {
  readers.set(db, reader);
}

export function directReaderOf(db: object): DirectReader | undefined {
  return paused.has(db) ? undefined : readers.get(db);
}

/**
 * A schema change on SQLite turns foreign keys off around its transaction; between those
 * steps nothing may run directly (a write would skip its foreign key checks), so statements
 * queue on the connection until the change is done.
 */
export async function withDirectPaused<T>(db: object, work: () => Promise<T>): Promise<T> {
  paused.add(db);
  try {
    return await work();
  } finally {
    paused.delete(db);
  }
}
