import { createHash } from 'node:crypto';
import type { Database } from '../db/database.js';
import { ApiError } from '../errors/api-error.js';
import type { Collection } from '../schema/collection.js';
import { DIALECT_TRAITS } from '../sql/dialect-traits.js';
import type { Principal } from './principal.js';
import { API_KEYS, ROOT_ROLE } from './system-collections.js';

/** Lifetime of an API key created without expiresIn. */
const API_KEY_DEFAULT_TTL_SECONDS = 365 * 24 * 3600;

/** API keys are stored as this digest: the token itself is high-entropy, a slow hash adds nothing. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** `apiKeys:create` (Authenticator.createApiKey): stores the key row and returns its token once. */
export async function createApiKey(
  database: Database,
  keys: Collection,
  principal: Principal,
  body: unknown,
  sign: (claims: Record<string, string>, ttlSeconds: number) => Promise<string>,
): Promise<{ id: number; token: string }> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError('BODY_INVALID', 'apiKeys:create needs {"name", "role", "expiresIn"?}');
  const { name, role, expiresIn } = body as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') throw new ApiError('VALIDATION_FAILED', 'name must be a non-empty string', { field: 'name' });
  if (typeof role !== 'string') throw new ApiError('VALIDATION_FAILED', 'role must be a role name', { field: 'role' });
  if (expiresIn !== undefined && expiresIn !== null && !(Number.isInteger(expiresIn) && (expiresIn as number) > 0)) {
    throw new ApiError('VALIDATION_FAILED', 'expiresIn must be a positive number of seconds', { field: 'expiresIn' });
  }
  if (!principal.roles.includes(role) && !principal.roles.includes(ROOT_ROLE)) throw new ApiError('FORBIDDEN', `you cannot give a key the role ${role}`, { field: 'role' });
  if (principal.apiKeyId !== undefined) throw new ApiError('FORBIDDEN', 'an API key cannot create API keys');
  const ttl = typeof expiresIn === 'number' ? expiresIn : API_KEY_DEFAULT_TTL_SECONDS;
  const now = new Date();
  const values: Record<string, unknown> = { name, role, expiresIn: typeof expiresIn === 'number' ? expiresIn : null, expiresAt: new Date(now.getTime() + ttl * 1000), userId: principal.user.id, createdAt: now, updatedAt: now };
  const row: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) if (value !== null) row[key] = keys.fields.get(key)!.type.toDb(value, database.dialect);
  const { db } = database;
  // apiKeys has integer ids (SQLite may hand them back as BigInt).
  const id = Number(DIALECT_TRAITS[database.dialect].returning
    ? (await db.insertInto(API_KEYS).values(row).returning('id').executeTakeFirstOrThrow()).id
    : (await db.insertInto(API_KEYS).values(row).executeTakeFirstOrThrow()).insertId);
  const token = await sign({ sub: String(principal.user.id), key: String(id) }, ttl);
  await db.updateTable(API_KEYS).set({ tokenHash: tokenHash(token) }).where('id', '=', id).execute();
  return { id, token };
}

/**
 * The roles a request made with an API key acts with: the key's role, as its creator (401
 * AUTH_INVALID_TOKEN when the key was destroyed, its creator deleted, or the creator no longer
 * holds the role; a disabled creator is refused before).
 */
export async function apiKeyRoles(
  database: Database,
  keys: Collection,
  request: { id: string; token: string; user: Principal['user']; held: readonly string[] },
): Promise<string[]> {
  const { id, token, user, held } = request;
  const key = await database.db.selectFrom(API_KEYS).select(['role', 'tokenHash', 'userId', 'createdAt']).where('id', '=', id).executeTakeFirst();
  if (key === undefined || key.tokenHash !== tokenHash(token) || String(key.userId) !== String(user.id)) {
    throw new ApiError('AUTH_INVALID_TOKEN', 'the API key has been revoked');
  }
  // A key older than its user was made by a deleted user whose id came back (given explicitly, a restored dump).
  const createdAt = keys.fields.get('createdAt')!;
  const made = key.createdAt === null ? Number.NaN : Date.parse(String(createdAt.type.fromDb(key.createdAt, database.dialect, createdAt.def)));
  if (!(made >= Date.parse(String(user.createdAt)))) throw new ApiError('AUTH_INVALID_TOKEN', 'the API key\'s creator no longer exists');
  // The key acts as its creator restricted to its role, and stops while the creator lacks it.
  const role = String(key.role);
  if (!held.includes(role) && !held.includes(ROOT_ROLE)) throw new ApiError('AUTH_INVALID_TOKEN', 'the API key\'s role has been taken from its creator');
  return [role];
}
