/**
 * Corral's system collections (auth and webhooks) by API name, and the table each gets on a
 * database where Corral creates it: `corral_…`, so a database that has its own `users` or
 * `roles` table is never touched, and catalogue reads leave them out like every `corral_`
 * table (db/catalogue/catalogue-filter.ts). A system collection stored by an earlier version
 * without `tableName` keeps its table under its API name (docs/existing-databases.md
 * "Corral's own tables").
 */
export const SYSTEM_COLLECTION_TABLES = {
  roles: 'corral_roles',
  users: 'corral_users',
  apiKeys: 'corral_api_keys',
  rolesResourcesScopes: 'corral_roles_resources_scopes',
  // Not `corral_webhooks`: that is where earlier versions kept webhooks, moved from at start (webhooks/webhook-migration.ts).
  webhooks: 'corral_webhook_definitions',
  attachments: 'corral_attachments',
} as const satisfies Record<string, `corral_${string}`>;

export type SystemCollectionName = keyof typeof SYSTEM_COLLECTION_TABLES;

/**
 * The API names the system collections take, whatever their tables: a user table introspected
 * under one of these names needs another API name (with `tableName` kept). `collectionNameProblem`
 * (reserved-names.ts) is the whole check a derived name must pass; these are among it.
 */
export function systemCollectionNames(): readonly SystemCollectionName[] {
  return Object.keys(SYSTEM_COLLECTION_TABLES) as SystemCollectionName[];
}

/**
 * The system collections whose rows carry grants (who may do what: users and their roles,
 * roles, API keys, named scopes): `Collection.carriesGrants`. The store writes them one row at
 * a time through their own actions, whose checks see the body, and refuses a bulk write (an
 * import) into them (store/write-mode.ts IMPORT_WRITE). The strategy of a role never covers
 * them (auth/permissions.ts).
 */
export const GRANT_COLLECTIONS: ReadonlySet<SystemCollectionName> = new Set(['users', 'roles', 'apiKeys', 'rolesResourcesScopes']);

/** Whether the rows of the collection named `name` carry grants (GRANT_COLLECTIONS). */
export function carriesGrants(name: string): boolean {
  return (GRANT_COLLECTIONS as ReadonlySet<string>).has(name);
}
