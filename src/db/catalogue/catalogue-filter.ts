/**
 * Which tables a catalogue read returns: never Corral's own system tables, then the caller's
 * include/exclude patterns (docs/existing-databases.md).
 */

/**
 * Corral's system tables (corral_collections, corral_meta, corral_changes…, corral_auth_secret,
 * corral_search_tokens, corral_webhook_…, corral_secrets) all start with `corral_`, a prefix
 * collection names may not take (schema/reserved-names.ts); compared without regard to case, as
 * that check is, so a MySQL server that folds table names to lower case changes nothing.
 */
export const CORRAL_TABLE_PREFIX = 'corral_';

export function isCorralTable(name: string): boolean {
  return name.toLowerCase().startsWith(CORRAL_TABLE_PREFIX);
}

export interface TablePatterns {
  /** Only tables matching one of these (all when missing or empty). */
  include?: readonly string[];
  /** No table matching one of these, even when included. */
  exclude?: readonly string[];
}

/**
 * A table-name pattern: `*` any run of characters, `?` one character, everything else itself;
 * the whole name must match, without regard to case.
 */
export function tablePattern(pattern: string): RegExp {
  const body = Array.from(pattern, (char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`, 'isu');
}

/** Whether a table is wanted: not Corral's, included (when a list is given) and not excluded (exclude wins). */
export function catalogueFilter(patterns: TablePatterns = {}): (name: string) => boolean {
  const include = (patterns.include ?? []).map(tablePattern);
  const exclude = (patterns.exclude ?? []).map(tablePattern);
  return (name) => !isCorralTable(name) && (include.length === 0 || include.some((re) => re.test(name))) && !exclude.some((re) => re.test(name));
}
