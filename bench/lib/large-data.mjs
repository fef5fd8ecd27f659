// @ts-check
// The `--large` data set: the bench's schema made by Corral through its API (posts' `title`
// searchable), one post through the API as the template, then the rest of the posts, their rows
// of Corral's token table and a composite index on (status, views) directly in SQL, and fresh
// statistics: about a minute for 1,000,000 posts instead of hours through the API.
import { indexName } from '../../dist/schema/index-name.js';
import { SEARCH_TABLE } from '../../dist/schema/search-table.js';
import { rowTokens } from '../../dist/text/search-tokens.js';
import { seedScaleTemplate } from '../seed.mjs';
import { insertPosts, withPostgres } from './databases.mjs';

/**
 * The composite index of the two-condition filter (`status` = …, `views` > …), named as Corral
 * names its own indexes (`ix_<table>_<columns>`), so the index API that comes later finds the
 * same name: equality column first, then the range.
 */
export const STATUS_VIEWS_INDEX = indexName('ix', 'posts', ['status', 'views'].join('_'));

/**
 * The tokens of a seeded post's title (`post <id>`), the ones the SQL below writes; checked
 * against Corral's own tokeniser, so a change of the tokeniser fails the seeding loudly.
 * @param {number} id
 */
export function titleTokens(id) {
  const tokens = rowTokens([`post ${id}`]);
  const expected = ['post', String(id)];
  if (JSON.stringify(tokens) !== JSON.stringify(expected)) throw new Error(`large data: Corral tokenises "post ${id}" as ${JSON.stringify(tokens)}, the seeding writes ${JSON.stringify(expected)}`);
  return tokens;
}

/**
 * Fills a database whose schema and post 1 Corral made (seedLargeSchema) with posts 2..count,
 * their search tokens and the composite index, and analyses the tables.
 * @param {import('./types.mjs').BenchDatabase} database
 * @param {number} count
 */
export async function fillLarge(database, count) {
  titleTokens(count);
  await insertPosts(database, count);
  if (database.kind === 'sqlite') {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(database.file);
    db.pragma('journal_mode = WAL');
    try {
      db.transaction(() => {
        // Post 1's tokens came through Corral's write path.
        db.prepare(`insert into ${SEARCH_TABLE} (collection, token, int_key) select 'posts', 'post', id from posts where id > 1`).run();
        db.prepare(`insert into ${SEARCH_TABLE} (collection, token, int_key) select 'posts', cast(id as text), id from posts where id > 1`).run();
      })();
      db.exec(`create index if not exists "${STATUS_VIEWS_INDEX}" on posts (status, views)`);
      // Statistics for the planner (sqlite_stat1), as a maintained database has them.
      db.exec('analyze');
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
    return;
  }
  await withPostgres(database, async (client) => {
    await client.query(`insert into ${SEARCH_TABLE} (collection, token, int_key) select 'posts', token, id from posts, unnest(array['post', id::text]) as token where id > 1`);
    await client.query(`create index if not exists "${STATUS_VIEWS_INDEX}" on posts (status, views)`);
    await client.query(`vacuum analyze ${SEARCH_TABLE}`);
    await client.query('vacuum analyze posts');
    // No parallel workers: every statement's CPU is then its backend's, which the bench reads
    // (a parallel worker lives for one statement, too short to be sampled). Servers started
    // after this see it.
    await client.query(`alter database "${database.name}" set max_parallel_workers_per_gather = 0`);
  });
}

/**
 * The schema through Corral's API (posts' title searchable) and post 1, the template.
 * @param {string} baseUrl
 */
export async function seedLargeSchema(baseUrl) {
  await seedScaleTemplate(baseUrl, { searchable: true });
}
