import { sql, type Expression, type SqlBool } from 'kysely';
import type { FilterNode } from '../plan/filter-node.js';
import { TOKEN_END } from '../text/search-tokens.js';
import { keyColumn, SEARCH_TABLE } from '../schema/search-table.js';
import { KEY_ONLY, type SqlPass } from './sql-pass.js';

type SearchNode = Extract<FilterNode, { kind: 'search' }>;

/** How a `$search` is evaluated: the key letter of each SQL form. */
type SearchForm =
  /** The first (rare) word is one list of rows; every other word is probed per candidate row. */
  | 'p'
  /** All words common: nested inside the token table, rarest innermost (`nestSearchWords`). */
  | 'n'
  /** One `key in (…)` list per word. */
  | 'l'
  /** All words common (`node.common`): every word probed per row, the rows walked in the statement's order. */
  | 'w';

const col = (alias: string, name: string) => sql.ref(`${alias}.${name}`);

/**
 * The SQL form a search takes on a dialect (store/search-stats.ts chose the order and `probe`).
 * One word is one list unless it is common (a walk).
 */
function searchForm(node: SearchNode, pass: SqlPass): SearchForm {
  if (node.common === true) return 'w';
  if (node.words.length < 2) return 'l';
  if (node.probe === true) return 'p';
  return pass.adapter.traits.nestSearchWords ? 'n' : 'l';
}

/**
 * `$search` over the row aliased `alias`, in one pass with its shape key (`sql-pass.ts`).
 * The key names the key field, the number of words and the form, so every form has its own
 * key; every word binds the collection, the word and its upper bound, in the order the SQL
 * text holds them (in the nested form the most common word comes first).
 */
export function searchSql(n: SearchNode, pass: SqlPass, alias: string): Expression<SqlBool> {
  const { emit } = pass;
  const form = searchForm(n, pass);
  pass.key += `s:${n.key.name}:${n.words.length}:${form}`;
  const name = keyColumn(n.key.type.name);
  // A uuid column type of its own (PostgreSQL) compares with uuids only (the token table keeps text keys).
  const uuidKey = n.key.type.name === 'uuid' && pass.adapter.capabilities.uuidType;
  const keyRef = emit ? col(alias, n.key.column) : KEY_ONLY;
  const listColumn = emit ? (uuidKey ? sql`cast(${sql.ref(name)} as uuid)` : sql.ref(name)) : KEY_ONLY;

  /** The token range of one word; `ref` names a token-table column (called only when emitting). */
  const range = (word: string, ref: (column: string) => Expression<unknown> = sql.ref): Expression<SqlBool> => {
    const collection = pass.value(n.collection);
    const from = pass.value(word);
    const to = pass.value(`${word}${TOKEN_END}`);
    if (!emit) return KEY_ONLY;
    return sql<SqlBool>`${ref('collection')} = ${collection} and ${ref('token')} >= ${from} and ${ref('token')} < ${to}`;
  };
  // A list of the rows holding a word: one index range on (collection, token, key).
  const list = (word: string): Expression<SqlBool> => {
    const where = range(word);
    if (!emit) return KEY_ONLY;
    return sql<SqlBool>`${keyRef} in (select ${listColumn} from ${sql.table(SEARCH_TABLE)} where ${where})`;
  };
  // One row's tokens tested for a word: a seek on (collection, key, token).
  const probe = (word: string): Expression<SqlBool> => {
    if (!emit) return range(word);
    const inner = `s${++pass.aliases}`;
    const where = range(word, (column) => col(inner, column));
    const outer = uuidKey ? sql`cast(${keyRef} as varchar)` : keyRef;
    return sql<SqlBool>`exists (select 1 from ${sql.table(SEARCH_TABLE)} as ${sql.id(inner)} where ${col(inner, name)} = ${outer} and ${where})`;
  };

  switch (form) {
    case 'p': {
      // Words come rarest first (store/search-stats.ts): only the first is a list.
      const [first, ...rest] = n.words;
      const tests = [list(first!), ...rest.map(probe)];
      return emit ? pass.eb.and(tests) : KEY_ONLY;
    }
    case 'w': {
      // Words come in the fewest rows first: the first probe rejects the most rows.
      const tests = n.words.map(probe);
      return emit ? pass.eb.and(tests) : KEY_ONLY;
    }
    case 'l': {
      const tests = n.words.map(list);
      return emit ? pass.eb.and(tests) : KEY_ONLY;
    }
    case 'n': {
      // Rarest innermost: `key in (select k … w3 and k in (select k … w2 and k in (select k … w1)))`.
      // The text holds the most common word first, so its values bind first.
      const ranges = [...n.words].reverse().map((word) => range(word));
      if (!emit) return KEY_ONLY;
      const plain = sql.ref(name);
      let nested = ranges[ranges.length - 1]!;
      for (let i = ranges.length - 2; i >= 0; i--) {
        nested = sql<SqlBool>`${ranges[i]!} and ${plain} in (select ${plain} from ${sql.table(SEARCH_TABLE)} where ${nested})`;
      }
      return sql<SqlBool>`${keyRef} in (select ${listColumn} from ${sql.table(SEARCH_TABLE)} where ${nested})`;
    }
  }
}
