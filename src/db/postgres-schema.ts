/** The schema Corral's tables live in on PostgreSQL when the connection URL names none. */
export const POSTGRES_DEFAULT_SCHEMA = 'public';

/**
 * The schema of a PostgreSQL connection URL (`?schema=name`, default `public`). Every
 * connection puts it first in `search_path`, ahead of `pg_catalog`, so an unqualified table
 * name always means Corral's table and never a catalogue table such as `pg_shadow`.
 */
export function postgresSchema(url: string): string {
  try {
    return new URL(url).searchParams.get('schema') || POSTGRES_DEFAULT_SCHEMA;
  } catch {
    return POSTGRES_DEFAULT_SCHEMA;
  }
}

/** The `options` startup parameter that sets search_path (no extra round trip per connection). */
export function searchPathOption(schema: string): string {
  // Double quotes keep the name literal; a backslash escapes characters libpq options split on.
  const quoted = `"${schema.replace(/"/g, '""')}"`.replace(/([\s\\])/g, '\\$1');
  return `-c search_path=${quoted},pg_catalog`;
}
