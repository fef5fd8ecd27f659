import { createHash } from 'node:crypto';
import { ApiError } from '../errors/api-error.js';
import type { Collection } from '../schema/collection.js';
import { credentialOf } from './credentials.js';
import type { Principal } from '../request/principal.js';
import type { SystemReads } from '../store/system/system-reads.js';
import { API_KEYS, ROOT_ROLE } from './system-collections.js';

/** Lifetime of an API key created without expiresIn. */
const API_KEY_DEFAULT_TTL_SECONDS = 365 * 24 * 3600;
/** The longest lifetime a key may have; `"never"` means this long (a token always has an expiry). */
export const API_KEY_MAX_TTL_SECONDS = 10 * 365 * 24 * 3600;
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 24 * 3600 };

/** `role` as NocoBase's client sends it (`{"name": "admin", ...}`) or a role name. */
function roleNameOf(role: unknown): string {
  const name = typeof role === 'object' && role !== null && !Array.isArray(role) ? (role as Record<string, unknown>).name : role;
  if (typeof name !== 'string' || name === '') throw new ApiError('VALIDATION_FAILED', 'role must be a role name or {"name": <role name>}', { field: 'role' });
  return name;
}

/** `expiresIn` in seconds: a positive integer, `"<n>d"` (or s, m, h: NocoBase offers 1d, 7d, 30d, 90d) or `"never"`; at most ten years. */
function lifetimeOf(expiresIn: unknown): number {
  if (expiresIn === undefined || expiresIn === null) return API_KEY_DEFAULT_TTL_SECONDS;
  if (expiresIn === 'never') return API_KEY_MAX_TTL_SECONDS;
  const match = typeof expiresIn === 'string' ? /^([1-9][0-9]{0,9})([smhd])$/.exec(expiresIn) : null;
  const seconds = match !== null ? Number(match[1]) * UNIT_SECONDS[match[2]!]! : expiresIn;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds <= 0 || seconds > API_KEY_MAX_TTL_SECONDS) {
    throw new ApiError('VALIDATION_FAILED', `expiresIn must be a number of seconds up to ${API_KEY_MAX_TTL_SECONDS}, "<n>d" (1d, 7d, 30d, 90d) or "never"`, { field: 'expiresIn' });
  }
  return seconds;
}

/** API keys are stored as this digest: the token itself is high-entropy, a slow hash adds nothing. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** What `apiKeys:create` writes for a body: the row's values, the names the client gave, the key's role and lifetime. */
export interface NewApiKey {
  readonly values: Record<string, unknown>;
  readonly given: readonly string[];
  readonly role: string;
  readonly ttlSeconds: number;
}

/**
 * Checks an `apiKeys:create` body `{name, role, expiresIn?}` for `principal`: the key acts as
 * its creator restricted to `role` (one the creator holds); an API key cannot make keys.
 */
export function newApiKey(principal: Principal, body: unknown, now: Date): NewApiKey {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError('BODY_INVALID', 'apiKeys:create needs {"name", "role", "expiresIn"?}');
  const { name, expiresIn } = body as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') throw new ApiError('VALIDATION_FAILED', 'name must be a non-empty string', { field: 'name' });
  const role = roleNameOf((body as Record<string, unknown>).role);
  const ttl = lifetimeOf(expiresIn);
  // NocoBase answers 400 "Role not found" for a role the creator does not hold.
  if (!principal.roles.includes(role) && !principal.roles.includes(ROOT_ROLE)) throw new ApiError('VALIDATION_FAILED', `role not found among your roles: ${role}`, { field: 'role' });
  if (principal.apiKeyId !== undefined) throw new ApiError('FORBIDDEN', 'an API key cannot create API keys');
  const values = { name, role, roleName: role, expiresIn: expiresIn === 'never' ? null : ttl, expiresAt: new Date(now.getTime() + ttl * 1000).toISOString(), userId: principal.user.id };
  return { values, given: ['name', 'role', ...(expiresIn === undefined ? [] : ['expiresIn'])], role, ttlSeconds: ttl };
}

/** The claims of a key's token: it acts as `userId` with `role`, and names its row (checked on every request). */
export function apiKeyClaims(userId: unknown, keyId: unknown, role: string): Record<string, string> {
  return { sub: String(userId), key: String(keyId), roleName: role };
}

/**
 * How a request shows it holds a key: the key's own token (compared with the stored digest),
 * or the key's credential (a digest of that digest, credentialOf) that a stream ticket asked
 * with the key carries into the token Corral signs for that one stream (docs/events.md#revocation).
 */
export type KeyProof = { readonly token: string } | { readonly credential: string };

/** A key that stands: the roles a request made with it acts with, and the key's credential. */
export interface KeyStanding {
  readonly roles: string[];
  readonly credential: string;
}

/**
 * The roles a request made with an API key acts with: the key's role, as its creator (401
 * AUTH_INVALID_TOKEN when the key was destroyed, its creator deleted, or the creator no longer
 * holds the role; a disabled creator is refused before).
 */
export async function apiKeyRoles(
  reads: SystemReads,
  keys: Collection,
  request: { id: string; proof: KeyProof; user: Principal['user']; held: readonly string[] },
): Promise<KeyStanding> {
  const { id, proof, user, held } = request;
  // One indexed read by key; the digest is compared as stored (a password field decodes to nothing).
  const raw = await reads.byId(keys, KEY_COLUMNS, id);
  const key = raw === undefined ? undefined : keys.decode(raw, KEY_FIELDS.get(keys) ?? keyFields(keys));
  const stored = typeof raw?.tokenHash === 'string' ? raw.tokenHash : undefined;
  const proven = stored !== undefined && ('token' in proof ? stored === tokenHash(proof.token) : credentialOf(stored) === proof.credential);
  if (raw === undefined || key === undefined || !proven || String(key.userId) !== String(user.id)) {
    throw new ApiError('AUTH_INVALID_TOKEN', 'the API key has been revoked');
  }
  // A key older than its user was made by a deleted user whose id came back (given explicitly, a restored dump).
  const made = key.createdAt === null ? Number.NaN : Date.parse(String(key.createdAt));
  if (!(made >= Date.parse(String(user.createdAt)))) throw new ApiError('AUTH_INVALID_TOKEN', 'the API key\'s creator no longer exists');
  // The key acts as its creator restricted to its role, and stops while the creator lacks it.
  const role = String(key.role);
  if (!held.includes(role) && !held.includes(ROOT_ROLE)) throw new ApiError('AUTH_INVALID_TOKEN', 'the API key\'s role has been taken from its creator');
  return { roles: [role], credential: credentialOf(stored) };
}

const KEY_COLUMNS = ['role', 'tokenHash', 'userId', 'createdAt'] as const;
/** The decoded fields of a key row (its digest stays raw), per compiled collection. */
const KEY_FIELDS = new WeakMap<Collection, readonly Collection['fieldList'][number][]>();

function keyFields(keys: Collection): readonly Collection['fieldList'][number][] {
  const fields = ['role', 'userId', 'createdAt'].map((name) => keys.fields.get(name)!);
  KEY_FIELDS.set(keys, fields);
  return fields;
}
