import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/database.js';
import { adapterOf } from '../../db/dialects/adapters.js';
import { systemTable, type SystemTable } from '../../db/system-table.js';
import type { Dialect } from '../../schema/types.js';

/**
 * The auth layer's own system tables (not collections: nobody reads them through the API).
 * `corral_auth_secret` keeps the token signing secret every node shares;
 * `corral_revoked_tokens` the ids of signed-out tokens until they would have expired;
 * `corral_sign_in_failures` one row per failed sign-in inside the limiter's window (rate-limiter.ts).
 */
export const SECRET_TABLE = 'corral_auth_secret';
export const REVOKED_TABLE = 'corral_revoked_tokens';
export const FAILURES_TABLE = 'corral_sign_in_failures';
const SECRET_BYTES = 48;
const CREATE_ATTEMPTS = 3;

const AUTH_TABLES: readonly SystemTable[] = [
  {
    name: SECRET_TABLE,
    columns: [
      { name: 'id', type: 'integer', primaryKey: true },
      { name: 'secret', type: 'varchar(255)', notNull: true },
    ],
    tableOptions: true,
  },
  {
    name: REVOKED_TABLE,
    columns: [
      { name: 'jti', type: 'varchar(64)', primaryKey: true },
      { name: 'expires_at', type: 'bigint', notNull: true },
      { name: 'revoked_at', type: 'bigint', notNull: true },
    ],
    tableOptions: true,
  },
  // The limiter reads one account's or one address's recent rows: the primary key and the
  // unique constraint are those two indexes (made with the table, so no CREATE INDEX race).
  {
    name: FAILURES_TABLE,
    columns: [
      { name: 'account', type: 'varchar(64)', notNull: true },
      { name: 'address', type: 'varchar(64)', notNull: true },
      { name: 'failed_at', type: 'bigint', notNull: true },
      { name: 'id', type: 'varchar(36)', notNull: true },
    ],
    primaryKey: { name: `${FAILURES_TABLE}_pk`, columns: ['account', 'failed_at', 'id'] },
    unique: [{ name: `${FAILURES_TABLE}_by_address`, columns: ['address', 'failed_at', 'id'] }],
    tableOptions: true,
  },
];

export async function ensureAuthTables(db: Db, dialect: Dialect, collation?: string): Promise<void> {
  const adapter = adapterOf(dialect);
  for (let attempt = 1; ; attempt++) {
    try {
      for (const table of AUTH_TABLES) await systemTable(db, adapter, table, collation);
      return;
    } catch (error) {
      // Nodes starting together race on CREATE TABLE; the next try sees the winner's table.
      if (attempt >= CREATE_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

/** The shared signing secret: the configured one, else the one the first node stored. */
export async function loadSecret(db: Db, configured: string | undefined): Promise<Uint8Array> {
  if (configured !== undefined) return new TextEncoder().encode(configured);
  const read = async () => (await db.selectFrom(SECRET_TABLE).select('secret').where('id', '=', 1).executeTakeFirst())?.secret as string | undefined;
  let secret = await read();
  let insertError: unknown;
  if (secret === undefined) {
    try {
      await db.insertInto(SECRET_TABLE).values({ id: 1, secret: randomBytes(SECRET_BYTES).toString('base64url') }).execute();
    } catch (error) {
      // Another node may have stored its secret first: then the read below finds that one.
      insertError = error;
    }
    secret = await read();
  }
  if (secret === undefined) throw new Error('the auth secret could not be stored', { cause: insertError });
  return new TextEncoder().encode(secret);
}

export async function insertRevocation(db: Db, jti: string, expiresAtMs: number, nowMs: number): Promise<void> {
  try {
    await db.insertInto(REVOKED_TABLE).values({ jti, expires_at: expiresAtMs, revoked_at: nowMs }).execute();
  } catch (error) {
    // Signing out twice is fine; anything else is not.
    const again = await db.selectFrom(REVOKED_TABLE).select('jti').where('jti', '=', jti).executeTakeFirst();
    if (again === undefined) throw error;
  }
}

/** Token ids revoked at or after `sinceMs` (with their expiry), for the other nodes' caches. */
export async function revokedSince(db: Db, sinceMs: number): Promise<{ jti: string; expiresAt: number; revokedAt: number }[]> {
  const rows = await db.selectFrom(REVOKED_TABLE).select(['jti', 'expires_at', 'revoked_at']).where('revoked_at', '>=', sinceMs).execute();
  return rows.map((row) => ({ jti: String(row.jti), expiresAt: Number(row.expires_at), revokedAt: Number(row.revoked_at) }));
}

/** Forgets revocations of tokens that have expired anyway. */
export async function pruneRevocations(db: Db, nowMs: number): Promise<void> {
  await db.deleteFrom(REVOKED_TABLE).where('expires_at', '<', nowMs).execute();
}

/** The token verifier's statements (auth/token-verifier.ts), bound to the pool. */
export class TokenRows {
  constructor(private readonly db: Db) {}

  loadSecret(configured: string | undefined): Promise<Uint8Array> {
    return loadSecret(this.db, configured);
  }

  insertRevocation(jti: string, expiresAtMs: number, nowMs: number): Promise<void> {
    return insertRevocation(this.db, jti, expiresAtMs, nowMs);
  }

  revokedSince(sinceMs: number): Promise<{ jti: string; expiresAt: number; revokedAt: number }[]> {
    return revokedSince(this.db, sinceMs);
  }

  pruneRevocations(nowMs: number): Promise<void> {
    return pruneRevocations(this.db, nowMs);
  }
}
