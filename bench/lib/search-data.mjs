// @ts-check
// The `search` scenario's data: a collection `articles` with two searchable fields, made by
// Corral through its API, and SEARCH_ROWS rows inserted directly in SQL together with their
// rows of Corral's token table, tokenised by Corral's own tokeniser (dist/), so the index is
// exactly what Corral's write path would have built. Through the API, 100,000 rows take
// about 20 s on SQLite and 50 s on PostgreSQL; directly, a few seconds.
import { rowTokens } from '../../dist/text/search-tokens.js';
import { SEARCH_TABLE } from '../../dist/schema/search-table.js';
import { random } from '../seed.mjs';
import { requestOk } from './proc.mjs';

export const SEARCH_ROWS = 100_000;
export const SEARCH_COLLECTION = 'articles';
/** 26 words; a row holds five of them, so each is in about a sixth of the rows (the common-word case). */
export const SEARCH_WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima', 'mike', 'november', 'oscar', 'papa', 'quebec', 'romeo', 'sierra', 'tango', 'uniform', 'victor', 'whiskey', 'xray', 'yankee', 'zulu'];
/** Rows per INSERT batch. */
const BATCH = 5000;

/** Row `i` (1-based) of the data set: the same on every run and database. @param {number} count */
function* articleRows(count) {
  const rand = random(7);
  const word = () => SEARCH_WORDS[Math.floor(rand() * SEARCH_WORDS.length)];
  for (let i = 1; i <= count; i++) {
    yield { id: i, title: `${word()} ${word()} ${i}`, body: `${word()} ${word()} ${word()} Ünïcödé café ${Math.floor(rand() * 1e6)}` };
  }
}

/**
 * Creates `articles` through Corral (so its table, indexes and token table are Corral's) and
 * inserts the rows and their tokens directly. `database` is the bench's `{kind, file | url}`.
 * @param {string} baseUrl
 * @param {import('./types.mjs').BenchDatabase} database
 * @param {number} [count]
 */
export async function seedSearch(baseUrl, database, count = SEARCH_ROWS) {
  await requestOk(baseUrl, 'POST', '/api/collections:create', {
    name: SEARCH_COLLECTION,
    fields: [
      { name: 'title', type: 'string', searchable: true },
      { name: 'body', type: 'text', searchable: true },
    ],
  });
  // One row through the API: the template of the stored timestamps.
  await requestOk(baseUrl, 'POST', `/api/${SEARCH_COLLECTION}:create`, { title: 'template', body: null });
  if (database.kind === 'sqlite') await insertSqlite(database.file, count);
  else await insertPostgres(database.url, count);
  const check = await requestOk(baseUrl, 'GET', `/api/${SEARCH_COLLECTION}:list?pageSize=1&sort=-id&filter=${encodeURIComponent(JSON.stringify({ $search: String(count) }))}`);
  if (check.body.data[0]?.id !== count) throw new Error(`seedSearch: row ${count} is not found by $search: ${JSON.stringify(check.body)}`);
}

/** @param {string} file @param {number} count */
async function insertSqlite(file, count) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  try {
    const template = /** @type {{ createdAt: string, updatedAt: string }} */ (db.prepare(`select createdAt, updatedAt from ${SEARCH_COLLECTION} where id = 1`).get());
    const row = db.prepare(`insert into ${SEARCH_COLLECTION} (id, createdAt, updatedAt, title, body) values (?, ?, ?, ?, ?)`);
    const token = db.prepare(`insert into ${SEARCH_TABLE} (collection, token, int_key) values (?, ?, ?)`);
    db.transaction(() => {
      db.prepare(`delete from ${SEARCH_TABLE} where collection = ?`).run(SEARCH_COLLECTION);
      db.prepare(`delete from ${SEARCH_COLLECTION}`).run();
      for (const article of articleRows(count)) {
        row.run(article.id, template.createdAt, template.updatedAt, article.title, article.body);
        for (const t of rowTokens([article.title, article.body])) token.run(SEARCH_COLLECTION, t, article.id);
      }
    })();
    // Statistics as Corral's rebuild leaves them (sampled), and the WAL folded into the file.
    db.pragma('analysis_limit = 1000');
    db.exec(`analyze ${SEARCH_TABLE}`);
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

/** @param {string} url @param {number} count */
async function insertPostgres(url, count) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('begin');
    const { rows } = await client.query(`select "createdAt", "updatedAt" from ${SEARCH_COLLECTION} where id = 1`);
    await client.query(`delete from ${SEARCH_TABLE} where collection = $1`, [SEARCH_COLLECTION]);
    await client.query(`delete from ${SEARCH_COLLECTION}`);
    /** @type {{ ids: number[], titles: string[], bodies: string[], tokens: string[], keys: number[] }} */
    let batch = { ids: [], titles: [], bodies: [], tokens: [], keys: [] };
    const flush = async () => {
      await client.query(
        `insert into ${SEARCH_COLLECTION} (id, "createdAt", "updatedAt", title, body) select id, $1, $2, title, body from unnest($3::bigint[], $4::text[], $5::text[]) as x(id, title, body)`,
        [rows[0].createdAt, rows[0].updatedAt, batch.ids, batch.titles, batch.bodies],
      );
      await client.query(`insert into ${SEARCH_TABLE} (collection, token, int_key) select $1, token, key from unnest($2::text[], $3::bigint[]) as x(token, key)`, [SEARCH_COLLECTION, batch.tokens, batch.keys]);
      batch = { ids: [], titles: [], bodies: [], tokens: [], keys: [] };
    };
    for (const article of articleRows(count)) {
      batch.ids.push(article.id);
      batch.titles.push(article.title);
      batch.bodies.push(article.body);
      for (const t of rowTokens([article.title, article.body])) {
        batch.tokens.push(t);
        batch.keys.push(article.id);
      }
      if (batch.ids.length === BATCH) await flush();
    }
    if (batch.ids.length > 0) await flush();
    await client.query(`select setval(pg_get_serial_sequence('${SEARCH_COLLECTION}', 'id'), $1)`, [count]);
    await client.query('commit');
    await client.query(`vacuum analyze ${SEARCH_COLLECTION}`);
    await client.query(`vacuum analyze ${SEARCH_TABLE}`);
  } finally {
    await client.end();
  }
}
