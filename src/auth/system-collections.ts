import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { SchemaManager } from '../schema/schema-manager.js';
import { SYSTEM_COLLECTION_TABLES } from '../schema/system-collection-tables.js';
import type { SystemDoor } from '../store/system/system-door.js';
import { WEBHOOKS_DEFINITION } from '../webhooks/webhook-definitions.js';
import { ATTACHMENTS_DEFINITION } from '../files/attachment-definition.js';

export const USERS = 'users';
export const ROLES = 'roles';
export const API_KEYS = 'apiKeys';
/** NocoBase's named row scopes: a role resource action points at one (`scopeId`, docs/auth.md). */
export const SCOPES = 'rolesResourcesScopes';
export const ROOT_ROLE = 'root';
/** The actions a role's strategy or a resource grant may name. */
export const GRANT_ACTIONS = ['view', 'create', 'update', 'destroy'] as const;
const GENERATED_PASSWORD_BYTES = 18;
/**
 * `users.disabled`: true refuses the user's sign-in and every token of theirs, API keys
 * included (docs/auth.md). Added to a users collection made before it existed.
 */
const DISABLED_FIELD = { name: 'disabled', type: 'boolean', allowNull: false, defaultValue: false } as const;
const CREATE_ATTEMPTS = 5;
/** `apiKeys.roleName`: the key's role, under NocoBase's name (added to an apiKeys collection made before it existed). */
const ROLE_NAME_FIELD = { name: 'roleName', type: 'string', length: 63 } as const;

/**
 * The system collections, created at first start through the schema API like any other, each
 * on its `corral_…` table (schema/system-collection-tables.ts). One stored already (an earlier
 * version's, without `tableName`) is kept as it is: its table stays named after it.
 */
const DEFINITIONS: readonly Record<string, unknown>[] = [
  {
    name: ROLES,
    tableName: SYSTEM_COLLECTION_TABLES.roles,
    autoGenId: false,
    fields: [
      { name: 'name', type: 'string', primaryKey: true, allowNull: false, length: 63 },
      { name: 'title', type: 'string' },
      { name: 'strategy', type: 'json' },
      { name: 'resources', type: 'json' },
    ],
  },
  {
    name: USERS,
    tableName: SYSTEM_COLLECTION_TABLES.users,
    fields: [
      { name: 'email', type: 'string', unique: true, allowNull: false },
      { name: 'username', type: 'string', unique: true },
      { name: 'nickname', type: 'string' },
      { name: 'password', type: 'password' },
      { name: 'roles', type: 'array' },
      DISABLED_FIELD,
    ],
  },
  {
    name: API_KEYS,
    tableName: SYSTEM_COLLECTION_TABLES.apiKeys,
    fields: [
      { name: 'name', type: 'string', allowNull: false },
      { name: 'role', type: 'string', allowNull: false },
      ROLE_NAME_FIELD,
      { name: 'expiresIn', type: 'integer', min: 1 },
      { name: 'expiresAt', type: 'date' },
      { name: 'userId', type: 'bigInt' },
      { name: 'tokenHash', type: 'password' },
    ],
  },
  {
    name: SCOPES,
    tableName: SYSTEM_COLLECTION_TABLES.rolesResourcesScopes,
    fields: [
      { name: 'key', type: 'string', unique: true },
      { name: 'name', type: 'string' },
      // null: usable on any collection.
      { name: 'resourceName', type: 'string' },
      { name: 'scope', type: 'json' },
    ],
  },
  // Root-only (permissions.ts); its secrets live beside the delivery state (src/webhooks/).
  WEBHOOKS_DEFINITION,
  // Uploaded files (docs/files.md): after users, whom createdById points at.
  ATTACHMENTS_DEFINITION,
];

/** The system collections' definitions as created on a new database (tests build an earlier version's layout from them). */
export function systemCollectionDefinitions(): readonly Record<string, unknown>[] {
  return DEFINITIONS;
}

/**
 * Creates the missing system collections, the root role and, when no user exists yet, the
 * root user (from the configured credentials, or with a generated password printed once).
 */
export async function ensureAuthCollections(
  schema: SchemaManager,
  system: SystemDoor,
  root: { email: string; password?: string },
  log: FastifyBaseLogger,
): Promise<void> {
  for (const definition of DEFINITIONS) {
    if (schema.snapshot.get(definition.name as string) !== undefined) continue;
    for (let attempt = 1; ; attempt++) {
      try {
        await schema.createCollection(definition, true);
        break;
      } catch (error) {
        // Another node starting at the same time may have created it first (on MySQL its DDL
        // then fails outright): read the schema again and see.
        await schema.reload();
        if (schema.snapshot.get(definition.name as string) !== undefined) break;
        if (attempt >= CREATE_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  }
  if (schema.snapshot.get(USERS)?.fields.has(DISABLED_FIELD.name) === false) {
    try {
      await schema.createField(USERS, DISABLED_FIELD);
    } catch (error) {
      // Another node starting at the same time may have added it first.
      await schema.reload();
      if (schema.snapshot.get(USERS)?.fields.has(DISABLED_FIELD.name) !== true) throw error;
    }
  }
  if (schema.snapshot.get(API_KEYS)?.fields.has(ROLE_NAME_FIELD.name) === false) {
    try {
      await schema.createField(API_KEYS, ROLE_NAME_FIELD);
      await system.fillFrom(schema.snapshot.get(API_KEYS)!, ROLE_NAME_FIELD.name, 'role');
    } catch (error) {
      await schema.reload();
      if (schema.snapshot.get(API_KEYS)?.fields.has(ROLE_NAME_FIELD.name) !== true) throw error;
    }
  }
  // Seeded through the store (system/system-door.ts): validated, stamped and with change events.
  const collection = (name: string) => schema.snapshot.get(name)!;
  const rootRole = () => system.has(collection(ROLES), ROOT_ROLE);
  if (!(await rootRole())) {
    try {
      await system.seed(collection(ROLES), { name: ROOT_ROLE, title: 'Root', strategy: { actions: [...GRANT_ACTIONS] } });
    } catch (error) {
      // A concurrent first start may have inserted it: fine if it is there now.
      if (!(await rootRole())) throw error;
    }
  }
  if (await system.any(collection(USERS))) return;
  const password = root.password ?? randomBytes(GENERATED_PASSWORD_BYTES).toString('base64url');
  try {
    await system.seed(collection(USERS), { email: root.email, username: 'root', nickname: 'Root', password, roles: [ROOT_ROLE] });
  } catch (error) {
    // A concurrent first start created the root user; only that node prints a password.
    log.debug({ err: error }, 'the root user exists already');
    return;
  }
  if (root.password === undefined) {
    // Printed once, on purpose outside the log (which may be shipped elsewhere).
    process.stderr.write(`corral: created the root user ${root.email} with the generated password ${password}\n` + 'corral: sign in and change it; it is not shown again\n');
  }
}
