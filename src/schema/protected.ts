import { ApiError } from '../errors/api-error.js';
import { systemCollectionNames, type SystemCollectionName } from './system-collection-tables.js';
import type { CollectionDef, FieldDef, RelationDef } from './types.js';
import { isUiOrAddress } from './ui-options.js';

/**
 * The fields each system collection is made with (auth/system-collections.ts,
 * webhooks/webhook-definitions.ts, files/attachment-definition.ts), besides the automatic id and
 * timestamps. Corral's own code reads and writes them, so the collections API never drops,
 * renames or reshapes them; fields a client adds to a system collection (extra user profile
 * fields) are the client's to change and drop. test/unit/protected-collections.test.ts keeps
 * this list equal to the definitions.
 */
const BUILT_IN_FIELDS: Readonly<Record<SystemCollectionName, readonly string[]>> = {
  roles: ['name', 'title', 'strategy', 'resources'],
  users: ['email', 'username', 'nickname', 'password', 'roles', 'disabled'],
  apiKeys: ['name', 'role', 'roleName', 'expiresIn', 'expiresAt', 'userId', 'tokenHash'],
  rolesResourcesScopes: ['key', 'name', 'resourceName', 'scope'],
  webhooks: ['url', 'collections', 'actions', 'active'],
  attachments: ['filename', 'extname', 'mimetype', 'size', 'sha256', 'storage', 'path', 'url', 'createdBy', 'createdById'],
};

const SYSTEM: ReadonlySet<string> = new Set(systemCollectionNames());

/** A system collection (users, roles, apiKeys, rolesResourcesScopes, webhooks, attachments): never dropped or renamed through the API. */
export function isSystemCollection(collection: string): boolean {
  return SYSTEM.has(collection);
}

/** The names of a system collection's built-in fields (undefined for any other collection). */
export function builtInFieldNames(collection: string): readonly string[] | undefined {
  return isSystemCollection(collection) ? BUILT_IN_FIELDS[collection as SystemCollectionName] : undefined;
}

/** A field Corral's own code relies on: every field a system collection is made with, its id and timestamps included. */
export function isBuiltInField(collection: string, field: FieldDef | RelationDef): boolean {
  const names = builtInFieldNames(collection);
  if (names === undefined) return false;
  return names.includes(field.name) || ('system' in field && field.system !== undefined);
}

/** 409 COLLECTION_PROTECTED: `what` would drop or reshape part of a system collection. */
export function protectedError(collection: string, what: string, field?: string): ApiError {
  const subject = field === undefined ? `${collection} is a system collection` : `${collection}.${field} is a built-in field of the system collection ${collection}`;
  return new ApiError('COLLECTION_PROTECTED', `${subject}: ${what} is not allowed`, { details: { collection, ...(field === undefined ? {} : { field }) } });
}

/** Refuses dropping (or renaming) a system collection. */
export function checkCollectionChange(def: CollectionDef, what: string): void {
  if (isSystemCollection(def.name)) throw protectedError(def.name, what);
}

/** Refuses dropping or reshaping a built-in field of a system collection; a field a client added passes. */
export function checkFieldChange(def: CollectionDef, fieldName: string, what: string): void {
  const field = fieldOf(def, fieldName);
  if (field !== undefined && isBuiltInField(def.name, field)) throw protectedError(def.name, what, fieldName);
}

function fieldOf(def: CollectionDef, name: string): FieldDef | RelationDef | undefined {
  return [...def.fields, ...(def.relations ?? [])].find((candidate) => candidate.name === name);
}

/** Options of a built-in field that a `fields:update` may change: labels and UI metadata, never the column. */
const RELABELLING: ReadonlySet<string> = new Set(['title', 'description']);
const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Refuses a `fields:update` that renames, retypes or otherwise reshapes a built-in field; relabelling passes. */
export function checkFieldPatch(def: CollectionDef | undefined, fieldName: string, patch: Record<string, unknown>): void {
  const field = def === undefined ? undefined : fieldOf(def, fieldName);
  if (def === undefined || field === undefined || !isBuiltInField(def.name, field)) return;
  const current = field as unknown as Record<string, unknown>;
  const changed = Object.entries(patch).find(([key, value]) => !isUiOrAddress(key) && !RELABELLING.has(key) && !sameJson(value, current[key]));
  if (changed !== undefined) throw protectedError(def.name, `changing its ${changed[0]}`, fieldName);
}
