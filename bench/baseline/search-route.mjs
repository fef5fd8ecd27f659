// The baseline's answer to the `search` scenario: `articles:list` with `{"$search": "…"}`, the
// simplest correct way on the token table Corral maintains: the words tokenised by Corral's
// own tokeniser (so both read the same index), one prefix range per word, the key sets
// intersected with INTERSECT, then the page and, when the page is full, the count.
import { TOKEN_END, tokenize } from '../../dist/text/search-tokens.js';
import { SEARCH_TABLE } from '../../dist/schema/search-table.js';
import { SEARCH_COLLECTION } from '../lib/search-data.mjs';

/** Most words a baseline statement is prepared for (the scenario sends two). */
const MAX_WORDS = 3;

const keysOf = (count, placeholder) =>
  Array.from({ length: count }, (_, i) => `select int_key from ${SEARCH_TABLE} where collection = ${placeholder(3 * i)} and token >= ${placeholder(3 * i + 1)} and token < ${placeholder(3 * i + 2)}`).join(' intersect ');

function sqliteStatements(db) {
  const columns = 'id, createdAt, updatedAt, title, body';
  // Prepared on first use: the articles table exists only when a selected scenario seeds it.
  const byWords = new Map();
  const statementsFor = (n) => {
    if (!byWords.has(n)) {
      const keys = keysOf(n, () => '?');
      byWords.set(n, {
        page: db.prepare(`select ${columns} from ${SEARCH_COLLECTION} where id in (${keys}) order by id asc limit ? offset ?`),
        count: db.prepare(`select count(*) as n from ${SEARCH_COLLECTION} where id in (${keys})`).pluck(),
      });
    }
    return byWords.get(n);
  };
  return {
    page: async (params, limit, offset) => statementsFor(params.length / 3).page.all(...params, limit, offset),
    count: async (params) => statementsFor(params.length / 3).count.get(...params),
  };
}

function postgresStatements(query) {
  const columns = 'id, "createdAt", "updatedAt", title, body';
  return {
    page: async (params, limit, offset) => {
      const n = params.length / 3;
      const text = `select ${columns} from ${SEARCH_COLLECTION} where id in (${keysOf(n, (i) => `$${i + 1}`)}) order by id asc limit $${3 * n + 1} offset $${3 * n + 2}`;
      return query(`searchPage${n}`, text, [...params, limit, offset]);
    },
    count: async (params) => {
      const n = params.length / 3;
      return (await query(`searchCount${n}`, `select count(*)::int as n from ${SEARCH_COLLECTION} where id in (${keysOf(n, (i) => `$${i + 1}`)})`, params))[0].n;
    },
  };
}

/**
 * Registers `GET /api/articles:list`. `store` is `{ kind: 'sqlite', db }` (better-sqlite3) or
 * `{ kind: 'postgres', query(name, text, values) }`; `paging` and `listReply` are the server's own.
 */
export function registerSearchRoute(app, store, { paging, listReply, badRequest }) {
  const statements = store.kind === 'sqlite' ? sqliteStatements(store.db) : postgresStatements(store.query);
  app.get(`/api/${SEARCH_COLLECTION}::list`, async (request, reply) => {
    const paged = paging(request.query);
    if (paged === undefined) return badRequest(reply, 'bad page or pageSize');
    let text;
    try {
      text = JSON.parse(request.query.filter ?? 'null')?.$search;
    } catch {
      return badRequest(reply, 'filter is not JSON');
    }
    if (typeof text !== 'string') return badRequest(reply, 'unsupported filter');
    const words = [...new Set(tokenize(text))];
    if (words.length === 0 || words.length > MAX_WORDS) return badRequest(reply, `1 to ${MAX_WORDS} words`);
    const params = words.flatMap((word) => [SEARCH_COLLECTION, word, `${word}${TOKEN_END}`]);
    const rows = await statements.page(params, paged.pageSize, paged.offset);
    return listReply(rows, paged, () => statements.count(params));
  });
}
