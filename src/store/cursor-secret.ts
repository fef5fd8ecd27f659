import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DynamicDb } from '../db/database.js';

/** Where Corral keeps secrets every node sharing the database must agree on. */
export const SECRETS_TABLE = 'corral_secrets';
export const CURSOR_SECRET_NAME = 'cursor';
/** Bytes of a generated secret. */
export const SECRET_BYTES = 32;

/**
 * The secret cursors are signed with: the configured one, else a random one stored once in
 * the database, so every node (and a restarted one) accepts the cursors of the others.
 * Two nodes starting together may race on the insert; both then read the winner's value.
 */
export async function loadCursorSecret(db: Kysely<DynamicDb>, configured?: string): Promise<Buffer> {
  if (configured !== undefined && configured !== '') return Buffer.from(configured, 'utf8');
  await db.schema
    .createTable(SECRETS_TABLE)
    .ifNotExists()
    .addColumn('name', 'varchar(63)', (c) => c.primaryKey())
    .addColumn('value', 'varchar(255)', (c) => c.notNull())
    .execute();
  const read = () => db.selectFrom(SECRETS_TABLE).select('value').where('name', '=', CURSOR_SECRET_NAME).executeTakeFirst();
  let row = await read();
  if (row === undefined) {
    try {
      await db.insertInto(SECRETS_TABLE).values({ name: CURSOR_SECRET_NAME, value: randomBytes(SECRET_BYTES).toString('base64url') }).execute();
    } catch {
      // another node stored its secret first
    }
    row = await read();
  }
  if (row === undefined) throw new Error('the cursor secret could not be stored');
  return Buffer.from(String(row.value), 'base64url');
}
