import { ApiError } from '../errors/api-error.js';
import { NAME_PATTERN } from './types.js';

/**
 * Names refused on every dialect alike (API.md section 12), so a schema that works on one
 * database works on all of them and no name can reach a database's own catalogue.
 */

/** Prefixes of catalogue tables (PostgreSQL, SQLite) and of Corral's own system tables. */
export const RESERVED_COLLECTION_PREFIXES = ['pg_', 'sqlite_', 'corral_'] as const;

/** Names the API itself uses, or that later system collections will take. */
export const RESERVED_COLLECTION_NAMES = new Set(['collections', 'fields', 'app', 'docs', 'auth', 'users', 'roles', 'apiKeys', 'rolesResourcesScopes', 'webhooks', 'attachments']);

/** Schema and catalogue names of the supported databases (compared without regard to case). */
export const CATALOGUE_NAMES = new Set(['information_schema', 'mysql', 'performance_schema', 'sys', 'pg_catalog', 'pg_toast']);

/**
 * Field names that are JavaScript object machinery or a system column of some dialect
 * (PostgreSQL's ctid/xmin/…, SQLite's rowid aliases, MySQL's _rowid), compared without regard to case.
 */
export const RESERVED_FIELD_NAMES = new Set([
  '__proto__', 'constructor', 'prototype',
  'ctid', 'xmin', 'xmax', 'cmin', 'cmax', 'tableoid', 'oid',
  'rowid', '_rowid_', '_rowid',
]);

/** Why a collection name is refused, or undefined when it is fine. */
export function collectionNameProblem(name: string): string | undefined {
  if (!NAME_PATTERN.test(name)) return `must match ${NAME_PATTERN.source}`;
  const lower = name.toLowerCase();
  if (RESERVED_COLLECTION_NAMES.has(name) || CATALOGUE_NAMES.has(lower)) return 'is reserved';
  const prefix = RESERVED_COLLECTION_PREFIXES.find((candidate) => lower.startsWith(candidate));
  if (prefix !== undefined) return `is reserved (names starting with ${prefix} belong to the database or to Corral)`;
  return undefined;
}

/** Why a field (or relation, or key column) name is refused, or undefined when it is fine. */
export function fieldNameProblem(name: string): string | undefined {
  if (!NAME_PATTERN.test(name)) return `must match ${NAME_PATTERN.source}`;
  if (RESERVED_FIELD_NAMES.has(name.toLowerCase())) return 'is reserved (a system column or object property name)';
  return undefined;
}

/**
 * Checks a name Corral derives from others (a through table, a key column) before any DDL
 * runs: too long a name would be cut by PostgreSQL, refused by MySQL and kept by SQLite.
 */
export function checkGeneratedName(kind: 'collection' | 'field', name: string, where: string, option: string): void {
  const problem = kind === 'collection' ? collectionNameProblem(name) : fieldNameProblem(name);
  if (problem !== undefined) {
    throw new ApiError('SCHEMA_INVALID', `${where}: the ${option} name ${name} ${problem}; give ${option} explicitly`, { field: where });
  }
}
