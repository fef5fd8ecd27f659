import { createHash } from 'node:crypto';

/** Identifier limit shared by PostgreSQL (63) and MySQL (64). */
const MAX_IDENTIFIER = 63;

/** Readable index names (`uq_posts_title`), hashed only when too long; never random. */
export function indexName(kind: 'uq' | 'ix' | 'fk' | 'idx' | 'uidx', table: string, column: string): string {
  const name = `${kind}_${table}_${column}`;
  if (name.length <= MAX_IDENTIFIER) return name;
  const hash = createHash('sha1').update(`${table}.${column}`).digest('hex').slice(0, 12);
  // 63 characters in all: the column part gives way to a longer kind (22 for the two-letter ones).
  return `${kind}_${table.slice(0, 24)}_${column.slice(0, 24 - kind.length)}_${hash}`;
}
