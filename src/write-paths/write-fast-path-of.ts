import type { Database } from '../db/database.js';
import { adapterOf } from '../db/dialects/adapters.js';
import type { WriteFastPath } from '../store/write-fast-path.js';
import { postgresFusedWrites } from './postgres-fused.js';
import { sqliteDirectWrites } from './sqlite-direct.js';

/**
 * The write fast path a database has, for the store to pick per write (store/write-mode.ts):
 * SQLite's direct unit on its one connection, or, where events go to a pending outbox
 * (PostgreSQL), the flat write that carries its event in the same statement. None elsewhere.
 */
export function writeFastPathOf(database: Database): WriteFastPath | undefined {
  return sqliteDirectWrites(database.executor) ?? (adapterOf(database.dialect).capabilities.pendingOutbox ? postgresFusedWrites : undefined);
}
