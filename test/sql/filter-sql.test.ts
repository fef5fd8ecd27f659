import { describe, expect, it } from 'vitest';
import { bindFilter } from '../../src/plan/bind-filter.js';
import { FALSE_NODE, TRUE_NODE, type FilterNode } from '../../src/plan/filter-node.js';
import { parseTimeZone } from '../../src/request/time-zone.js';
import { compileCollection } from '../../src/schema/collection.js';
import { normalizeCollection } from '../../src/schema/normalize-collection.js';
import type { CollectionDef, Dialect } from '../../src/schema/types.js';
import { filterKey, filterToSql } from '../../src/sql/filter-sql.js';
import { CASES } from './filter-cases.js';
import { compilerFor, goldenSnapshot } from './golden-support.js';

/**
 * Golden SQL of the filter compiler on each dialect (no database: Kysely compiles only), in
 * two parts: the exact WHERE text and parameters of `select id from posts where …` for every
 * node kind (a table), then whole statements for every operator (inline snapshots). The
 * key-only pass (`filterKey`, what a shape-cache hit binds) must push the compiler's
 * parameters, in order, in both.
 * A new FilterNode kind adds a raw filter to filter-cases.ts and its three lines here; a new
 * operator adds a case to the second part.
 */
const GOLDEN: Record<string, Record<Dialect, [sql: string, parameters: unknown[]]>> = {
  "compare eq": {
    sqlite: ["\"posts\".\"title\" = ?", ["a"]],
    postgres: ["\"posts\".\"title\" = $1", ["a"]],
    mysql: ["`posts`.`title` = ?", ["a"]],
  },
  "compare ne": {
    sqlite: ["(\"posts\".\"views\" <> ? or \"posts\".\"views\" is null)", [1]],
    postgres: ["(\"posts\".\"views\" <> $1 or \"posts\".\"views\" is null)", [1]],
    mysql: ["(`posts`.`views` <> ? or `posts`.`views` is null)", [1]],
  },
  "compare gt": {
    sqlite: ["\"posts\".\"views\" > ?", [1]],
    postgres: ["\"posts\".\"views\" > $1", [1]],
    mysql: ["`posts`.`views` > ?", [1]],
  },
  "compare gte": {
    sqlite: ["\"posts\".\"views\" >= ?", [1]],
    postgres: ["\"posts\".\"views\" >= $1", [1]],
    mysql: ["`posts`.`views` >= ?", [1]],
  },
  "compare lt": {
    sqlite: ["\"posts\".\"views\" < ?", [1]],
    postgres: ["\"posts\".\"views\" < $1", [1]],
    mysql: ["`posts`.`views` < ?", [1]],
  },
  "compare lte": {
    sqlite: ["\"posts\".\"views\" <= ?", [1]],
    postgres: ["\"posts\".\"views\" <= $1", [1]],
    mysql: ["`posts`.`views` <= ?", [1]],
  },
  "compare boolean": {
    sqlite: ["\"posts\".\"active\" = ?", [1]],
    postgres: ["\"posts\".\"active\" = $1", [true]],
    mysql: ["`posts`.`active` = ?", [1]],
  },
  "compare date": {
    sqlite: ["\"posts\".\"at\" = ?", ["2026-01-02T03:04:05.000Z"]],
    postgres: ["\"posts\".\"at\" = $1", ["2026-01-02T03:04:05.000Z"]],
    mysql: ["`posts`.`at` = ?", ["2026-01-02 03:04:05.000"]],
  },
  "isNull": {
    sqlite: ["\"posts\".\"title\" is null", []],
    postgres: ["\"posts\".\"title\" is null", []],
    mysql: ["`posts`.`title` is null", []],
  },
  "isNull negated": {
    sqlite: ["\"posts\".\"title\" is not null", []],
    postgres: ["\"posts\".\"title\" is not null", []],
    mysql: ["`posts`.`title` is not null", []],
  },
  "in": {
    sqlite: ["\"posts\".\"views\" in (?, ?)", [1, 2]],
    postgres: ["\"posts\".\"views\" in ($1, $2)", [1, 2]],
    mysql: ["`posts`.`views` in (?, ?)", [1, 2]],
  },
  "in negated": {
    sqlite: ["(\"posts\".\"views\" not in (?, ?) or \"posts\".\"views\" is null)", [1, 2]],
    postgres: ["(\"posts\".\"views\" not in ($1, $2) or \"posts\".\"views\" is null)", [1, 2]],
    mysql: ["(`posts`.`views` not in (?, ?) or `posts`.`views` is null)", [1, 2]],
  },
  "and": {
    sqlite: ["(\"posts\".\"title\" = ? and \"posts\".\"views\" = ?)", ["a", 1]],
    postgres: ["(\"posts\".\"title\" = $1 and \"posts\".\"views\" = $2)", ["a", 1]],
    mysql: ["(`posts`.`title` = ? and `posts`.`views` = ?)", ["a", 1]],
  },
  "or": {
    sqlite: ["(\"posts\".\"title\" = ? or \"posts\".\"views\" = ?)", ["a", 1]],
    postgres: ["(\"posts\".\"title\" = $1 or \"posts\".\"views\" = $2)", ["a", 1]],
    mysql: ["(`posts`.`title` = ? or `posts`.`views` = ?)", ["a", 1]],
  },
  "not": {
    sqlite: ["not coalesce(\"posts\".\"title\" = ?, 0)", ["a"]],
    postgres: ["not coalesce(\"posts\".\"title\" = $1, false)", ["a"]],
    mysql: ["not coalesce(`posts`.`title` = ?, 0)", ["a"]],
  },
  "exists belongsTo": {
    sqlite: ["exists (select 1 from \"authors\" as \"r1\" where \"r1\".\"id\" = \"posts\".\"authorId\" and \"r1\".\"name\" = ?)", ["x"]],
    postgres: ["exists (select 1 from \"authors\" as \"r1\" where \"r1\".\"id\" = \"posts\".\"authorId\" and \"r1\".\"name\" = $1)", ["x"]],
    mysql: ["exists (select 1 from `authors` as `r1` where `r1`.`id` = `posts`.`authorId` and `r1`.`name` = ?)", ["x"]],
  },
  "exists hasMany": {
    sqlite: ["exists (select 1 from \"comments\" as \"r1\" where \"r1\".\"postId\" = \"posts\".\"id\" and \"r1\".\"body\" = ?)", ["x"]],
    postgres: ["exists (select 1 from \"comments\" as \"r1\" where \"r1\".\"postId\" = \"posts\".\"id\" and \"r1\".\"body\" = $1)", ["x"]],
    mysql: ["exists (select 1 from `comments` as `r1` where `r1`.`postId` = `posts`.`id` and `r1`.`body` = ?)", ["x"]],
  },
  "exists belongsToMany": {
    sqlite: ["exists (select 1 from \"posts_tags\" as \"r1_link\" inner join \"tags\" as \"r1\" on \"r1\".\"id\" = \"r1_link\".\"tagId\" where \"r1_link\".\"postId\" = \"posts\".\"id\" and \"r1\".\"name\" = ?)", ["x"]],
    postgres: ["exists (select 1 from \"posts_tags\" as \"r1_link\" inner join \"tags\" as \"r1\" on \"r1\".\"id\" = \"r1_link\".\"tagId\" where \"r1_link\".\"postId\" = \"posts\".\"id\" and \"r1\".\"name\" = $1)", ["x"]],
    mysql: ["exists (select 1 from `posts_tags` as `r1_link` inner join `tags` as `r1` on `r1`.`id` = `r1_link`.`tagId` where `r1_link`.`postId` = `posts`.`id` and `r1`.`name` = ?)", ["x"]],
  },
  // A negative test below a path also matches a post without an author (a row of NULLs).
  "exists nested": {
    sqlite: ["(exists (select 1 from \"comments\" as \"r1\" where \"r1\".\"postId\" = \"posts\".\"id\" and \"r1\".\"body\" = ?) and (exists (select 1 from \"authors\" as \"r2\" where \"r2\".\"id\" = \"posts\".\"authorId\" and (\"r2\".\"name\" <> ? or \"r2\".\"name\" is null)) or not coalesce(exists (select 1 from \"authors\" as \"r3\" where \"r3\".\"id\" = \"posts\".\"authorId\" and 1 = 1), 0)))", ["x", "y"]],
    postgres: ["(exists (select 1 from \"comments\" as \"r1\" where \"r1\".\"postId\" = \"posts\".\"id\" and \"r1\".\"body\" = $1) and (exists (select 1 from \"authors\" as \"r2\" where \"r2\".\"id\" = \"posts\".\"authorId\" and (\"r2\".\"name\" <> $2 or \"r2\".\"name\" is null)) or not coalesce(exists (select 1 from \"authors\" as \"r3\" where \"r3\".\"id\" = \"posts\".\"authorId\" and 1 = 1), false)))", ["x", "y"]],
    mysql: ["(exists (select 1 from `comments` as `r1` where `r1`.`postId` = `posts`.`id` and `r1`.`body` = ?) and (exists (select 1 from `authors` as `r2` where `r2`.`id` = `posts`.`authorId` and (`r2`.`name` <> ? or `r2`.`name` is null)) or not coalesce(exists (select 1 from `authors` as `r3` where `r3`.`id` = `posts`.`authorId` and 1 = 1), 0)))", ["x", "y"]],
  },
  // Words rarest first as the store ordered them (here: as given). All common: one IN list per
  // word, or on PostgreSQL the lists intersected inside the token table, rarest innermost.
  "search one word": {
    sqlite: ["\"posts\".\"id\" in (select \"int_key\" from \"corral_search_tokens\" where \"collection\" = ? and \"token\" >= ? and \"token\" < ?)", ["posts", "fox", "fox\udbff\udfff"]],
    postgres: ["\"posts\".\"id\" in (select \"int_key\" from \"corral_search_tokens\" where \"collection\" = $1 and \"token\" >= $2 and \"token\" < $3)", ["posts", "fox", "fox\udbff\udfff"]],
    mysql: ["`posts`.`id` in (select `int_key` from `corral_search_tokens` where `collection` = ? and `token` >= ? and `token` < ?)", ["posts", "fox", "fox\udbff\udfff"]],
  },
  "search words": {
    sqlite: ["(\"posts\".\"id\" in (select \"int_key\" from \"corral_search_tokens\" where \"collection\" = ? and \"token\" >= ? and \"token\" < ?) and \"posts\".\"id\" in (select \"int_key\" from \"corral_search_tokens\" where \"collection\" = ? and \"token\" >= ? and \"token\" < ?) and \"posts\".\"id\" in (select \"int_key\" from \"corral_search_tokens\" where \"collection\" = ? and \"token\" >= ? and \"token\" < ?))", ["posts", "quick", "quick\udbff\udfff", "posts", "brown", "brown\udbff\udfff", "posts", "fox", "fox\udbff\udfff"]],
    postgres: ["\"posts\".\"id\" in (select \"int_key\" from \"corral_search_tokens\" where \"collection\" = $1 and \"token\" >= $2 and \"token\" < $3 and \"int_key\" in (select \"int_key\" from \"corral_search_tokens\" where \"collection\" = $4 and \"token\" >= $5 and \"token\" < $6 and \"int_key\" in (select \"int_key\" from \"corral_search_tokens\" where \"collection\" = $7 and \"token\" >= $8 and \"token\" < $9)))", ["posts", "fox", "fox\udbff\udfff", "posts", "brown", "brown\udbff\udfff", "posts", "quick", "quick\udbff\udfff"]],
    mysql: ["(`posts`.`id` in (select `int_key` from `corral_search_tokens` where `collection` = ? and `token` >= ? and `token` < ?) and `posts`.`id` in (select `int_key` from `corral_search_tokens` where `collection` = ? and `token` >= ? and `token` < ?) and `posts`.`id` in (select `int_key` from `corral_search_tokens` where `collection` = ? and `token` >= ? and `token` < ?))", ["posts", "quick", "quick\udbff\udfff", "posts", "brown", "brown\udbff\udfff", "posts", "fox", "fox\udbff\udfff"]],
  },
};

/** `search words` once the store found its first word rare: that word is the list, the others probe per row. */
const PROBE_GOLDEN: Record<Dialect, [sql: string, parameters: unknown[]]> = {
    sqlite: ["(\"posts\".\"id\" in (select \"int_key\" from \"corral_search_tokens\" where \"collection\" = ? and \"token\" >= ? and \"token\" < ?) and exists (select 1 from \"corral_search_tokens\" as \"s1\" where \"s1\".\"int_key\" = \"posts\".\"id\" and \"s1\".\"collection\" = ? and \"s1\".\"token\" >= ? and \"s1\".\"token\" < ?) and exists (select 1 from \"corral_search_tokens\" as \"s2\" where \"s2\".\"int_key\" = \"posts\".\"id\" and \"s2\".\"collection\" = ? and \"s2\".\"token\" >= ? and \"s2\".\"token\" < ?))", ["posts", "quick", "quick\udbff\udfff", "posts", "brown", "brown\udbff\udfff", "posts", "fox", "fox\udbff\udfff"]],
    postgres: ["(\"posts\".\"id\" in (select \"int_key\" from \"corral_search_tokens\" where \"collection\" = $1 and \"token\" >= $2 and \"token\" < $3) and exists (select 1 from \"corral_search_tokens\" as \"s1\" where \"s1\".\"int_key\" = \"posts\".\"id\" and \"s1\".\"collection\" = $4 and \"s1\".\"token\" >= $5 and \"s1\".\"token\" < $6) and exists (select 1 from \"corral_search_tokens\" as \"s2\" where \"s2\".\"int_key\" = \"posts\".\"id\" and \"s2\".\"collection\" = $7 and \"s2\".\"token\" >= $8 and \"s2\".\"token\" < $9))", ["posts", "quick", "quick\udbff\udfff", "posts", "brown", "brown\udbff\udfff", "posts", "fox", "fox\udbff\udfff"]],
    mysql: ["(`posts`.`id` in (select `int_key` from `corral_search_tokens` where `collection` = ? and `token` >= ? and `token` < ?) and exists (select 1 from `corral_search_tokens` as `s1` where `s1`.`int_key` = `posts`.`id` and `s1`.`collection` = ? and `s1`.`token` >= ? and `s1`.`token` < ?) and exists (select 1 from `corral_search_tokens` as `s2` where `s2`.`int_key` = `posts`.`id` and `s2`.`collection` = ? and `s2`.`token` >= ? and `s2`.`token` < ?))", ["posts", "quick", "quick\udbff\udfff", "posts", "brown", "brown\udbff\udfff", "posts", "fox", "fox\udbff\udfff"]],
};

const DIALECTS: Dialect[] = ['sqlite', 'postgres', 'mysql'];
const PREFIX: Record<Dialect, string> = { sqlite: 'select "id" from "posts" where ', postgres: 'select "id" from "posts" where ', mysql: 'select `id` from `posts` where ' };

function compileWhere(dialect: Dialect, table: string, node: FilterNode): { sql: string; parameters: readonly unknown[] } {
  const compiled = compilerFor(dialect).selectFrom(table).select('id').where((eb) => filterToSql(node, eb, dialect, table)).compile();
  return { sql: compiled.sql, parameters: compiled.parameters };
}

describe('filter compiler golden SQL', () => {
  it('covers every case listed', () => {
    expect(Object.keys(GOLDEN).sort()).toEqual(CASES.map(([name]) => name).sort());
  });

  for (const dialect of DIALECTS) {
    describe(dialect, () => {
      const snapshot = goldenSnapshot(dialect);
      const posts = snapshot.get('posts')!;

      for (const [name, filter] of CASES) {
        it(`${name}: exact SQL and parameters, and the cache key binds the same parameters`, () => {
          const node = bindFilter(filter, posts);
          const { sql, parameters } = compileWhere(dialect, 'posts', node);
          const [expectedSql, expectedParameters] = GOLDEN[name]![dialect];
          expect(sql).toBe(PREFIX[dialect] + expectedSql);
          expect(parameters).toEqual(expectedParameters);
          expect(filterKey(node, dialect).params).toEqual([...parameters]);
        });
      }

      it('search with a rare first word: one list, then a probe per word, binding what the cache key binds', () => {
        const node = bindFilter({ $search: 'quick brown fox' }, posts);
        if (node.kind !== 'search') throw new Error('a search node');
        const probing: FilterNode = { ...node, probe: true };
        const { sql, parameters } = compileWhere(dialect, 'posts', probing);
        const [expectedSql, expectedParameters] = PROBE_GOLDEN[dialect];
        expect(sql).toBe(PREFIX[dialect] + expectedSql);
        expect(parameters).toEqual(expectedParameters);
        expect(filterKey(probing, dialect).params).toEqual([...parameters]);
      });

      it('const: true and false', () => {
        expect(compileWhere(dialect, 'posts', TRUE_NODE).sql).toBe(`${PREFIX[dialect]}1 = 1`);
        expect(compileWhere(dialect, 'posts', FALSE_NODE).sql).toBe(`${PREFIX[dialect]}1 = 0`);
      });

      it('linkedThrough: the targets linked to one source through the junction', () => {
        const relation = posts.relations.get('tags')!;
        if (relation.type !== 'belongsToMany') throw new Error('posts.tags is a belongsToMany');
        const node: FilterNode = { kind: 'linkedThrough', relation, value: 7 };
        const { sql, parameters } = compileWhere(dialect, 'tags', node);
        const q = (name: string) => (dialect === 'mysql' ? `\`${name}\`` : `"${name}"`);
        const p = dialect === 'postgres' ? '$1' : '?';
        expect(sql).toBe(
          `select ${q('id')} from ${q('tags')} where exists (select 1 from ${q('posts_tags')} as ${q('l1')} where ${q('l1')}.${q('tagId')} = ${q('tags')}.${q('id')} and ${q('l1')}.${q('postId')} = ${p})`,
        );
        expect(parameters).toEqual([7]);
        expect(filterKey(node, dialect).params).toEqual([7]);
      });
    });
  }
});

/*
 * Golden SQL of every operator, whole statements as inline snapshots on the three dialects,
 * over `gadgets` (string, integer, boolean, date, dateOnly, array fields). The key-only
 * pass's parameters must equal the compiled ones here too (checked inside compileGadgets).
 */

const DEFINITION = {
  name: 'gadgets',
  fields: [
    { name: 'name', type: 'string' },
    { name: 'views', type: 'integer' },
    { name: 'active', type: 'boolean' },
    { name: 'at', type: 'date' },
    { name: 'day', type: 'dateOnly' },
    { name: 'tags', type: 'array' },
  ],
};

function compileGadgets(dialect: Dialect, filter: unknown, zone?: string): { sql: string; parameters: readonly unknown[] } {
  const normalized: unknown = normalizeCollection(DEFINITION);
  const def = (typeof normalized === 'object' && normalized !== null && 'def' in normalized ? normalized.def : normalized) as CollectionDef;
  const collection = compileCollection(def, dialect);
  const node = bindFilter(filter, collection, zone === undefined ? undefined : parseTimeZone(zone));
  const compiled = compilerFor(dialect).selectFrom('gadgets').select('id').where((eb) => filterToSql(node, eb, dialect, 'gadgets')).compile();
  expect(filterKey(node, dialect).params).toEqual(compiled.parameters);
  return { sql: compiled.sql, parameters: compiled.parameters };
}

const golden = (filter: unknown, zone?: string) => ({
  sqlite: compileGadgets('sqlite', filter, zone),
  postgres: compileGadgets('postgres', filter, zone),
  mysql: compileGadgets('mysql', filter, zone),
});

describe('golden SQL of every filter operator', () => {
  it('$between / $notBetween', () => {
    expect(golden({ views: { $between: [1, 5] } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            1,
            5,
          ],
          "sql": "select \`id\` from \`gadgets\` where (\`gadgets\`.\`views\` >= ? and \`gadgets\`.\`views\` <= ?)",
        },
        "postgres": {
          "parameters": [
            1,
            5,
          ],
          "sql": "select "id" from "gadgets" where ("gadgets"."views" >= $1 and "gadgets"."views" <= $2)",
        },
        "sqlite": {
          "parameters": [
            1,
            5,
          ],
          "sql": "select "id" from "gadgets" where ("gadgets"."views" >= ? and "gadgets"."views" <= ?)",
        },
      }
    `);
    expect(golden({ views: { $notBetween: [1, 5] } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            1,
            5,
          ],
          "sql": "select \`id\` from \`gadgets\` where (not coalesce((\`gadgets\`.\`views\` >= ? and \`gadgets\`.\`views\` <= ?), 0) or \`gadgets\`.\`views\` is null)",
        },
        "postgres": {
          "parameters": [
            1,
            5,
          ],
          "sql": "select "id" from "gadgets" where (not coalesce(("gadgets"."views" >= $1 and "gadgets"."views" <= $2), false) or "gadgets"."views" is null)",
        },
        "sqlite": {
          "parameters": [
            1,
            5,
          ],
          "sql": "select "id" from "gadgets" where (not coalesce(("gadgets"."views" >= ? and "gadgets"."views" <= ?), 0) or "gadgets"."views" is null)",
        },
      }
    `);
  });
  it('$includes / $notIncludes', () => {
    expect(golden({ name: { $includes: 'A%b_c\\' } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "(?s)[aA]\\%[bB]\\_[cC]\\\\",
          ],
          "sql": "select \`id\` from \`gadgets\` where \`gadgets\`.\`name\` regexp ?",
        },
        "postgres": {
          "parameters": [
            "%a\\%b\\_c\\\\%",
          ],
          "sql": "select "id" from "gadgets" where "gadgets"."name" ilike $1 escape '\\'",
        },
        "sqlite": {
          "parameters": [
            "%a\\%b\\_c\\\\%",
          ],
          "sql": "select "id" from "gadgets" where "gadgets"."name" like ? escape '\\'",
        },
      }
    `);
    expect(golden({ name: { $notIncludes: ['x', 'Y'] } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "(?s)[xX]",
            "(?s)[yY]",
          ],
          "sql": "select \`id\` from \`gadgets\` where (not coalesce((\`gadgets\`.\`name\` regexp ? or \`gadgets\`.\`name\` regexp ?), 0) or \`gadgets\`.\`name\` is null)",
        },
        "postgres": {
          "parameters": [
            "%x%",
            "%y%",
          ],
          "sql": "select "id" from "gadgets" where (not coalesce(("gadgets"."name" ilike $1 escape '\\' or "gadgets"."name" ilike $2 escape '\\'), false) or "gadgets"."name" is null)",
        },
        "sqlite": {
          "parameters": [
            "%x%",
            "%y%",
          ],
          "sql": "select "id" from "gadgets" where (not coalesce(("gadgets"."name" like ? escape '\\' or "gadgets"."name" like ? escape '\\'), 0) or "gadgets"."name" is null)",
        },
      }
    `);
  });
  it('$startsWith / $notStartsWith / $endsWith / $notEndsWith / $endWith / $notEndWith', () => {
    expect(golden({ name: { $startsWith: 'Ab' } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "(?s)^[aA][bB]",
          ],
          "sql": "select \`id\` from \`gadgets\` where \`gadgets\`.\`name\` regexp ?",
        },
        "postgres": {
          "parameters": [
            "ab%",
          ],
          "sql": "select "id" from "gadgets" where "gadgets"."name" ilike $1 escape '\\'",
        },
        "sqlite": {
          "parameters": [
            "ab%",
          ],
          "sql": "select "id" from "gadgets" where "gadgets"."name" like ? escape '\\'",
        },
      }
    `);
    expect(golden({ name: { $notStartsWith: 'Ab' } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "(?s)^[aA][bB]",
          ],
          "sql": "select \`id\` from \`gadgets\` where (not coalesce(\`gadgets\`.\`name\` regexp ?, 0) or \`gadgets\`.\`name\` is null)",
        },
        "postgres": {
          "parameters": [
            "ab%",
          ],
          "sql": "select "id" from "gadgets" where (not coalesce("gadgets"."name" ilike $1 escape '\\', false) or "gadgets"."name" is null)",
        },
        "sqlite": {
          "parameters": [
            "ab%",
          ],
          "sql": "select "id" from "gadgets" where (not coalesce("gadgets"."name" like ? escape '\\', 0) or "gadgets"."name" is null)",
        },
      }
    `);
    expect(golden({ name: { $endsWith: 'é.' } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "(?s)é\\.\\z",
          ],
          "sql": "select \`id\` from \`gadgets\` where \`gadgets\`.\`name\` regexp ?",
        },
        "postgres": {
          "parameters": [
            "%é.",
          ],
          "sql": "select "id" from "gadgets" where "gadgets"."name" ilike $1 escape '\\'",
        },
        "sqlite": {
          "parameters": [
            "%é.",
          ],
          "sql": "select "id" from "gadgets" where "gadgets"."name" like ? escape '\\'",
        },
      }
    `);
    expect(golden({ name: { $notEndsWith: 'z' } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "(?s)[zZ]\\z",
          ],
          "sql": "select \`id\` from \`gadgets\` where (not coalesce(\`gadgets\`.\`name\` regexp ?, 0) or \`gadgets\`.\`name\` is null)",
        },
        "postgres": {
          "parameters": [
            "%z",
          ],
          "sql": "select "id" from "gadgets" where (not coalesce("gadgets"."name" ilike $1 escape '\\', false) or "gadgets"."name" is null)",
        },
        "sqlite": {
          "parameters": [
            "%z",
          ],
          "sql": "select "id" from "gadgets" where (not coalesce("gadgets"."name" like ? escape '\\', 0) or "gadgets"."name" is null)",
        },
      }
    `);
    expect(golden({ name: { $endWith: 'z' } })).toEqual(golden({ name: { $endsWith: 'z' } }));
    expect(golden({ name: { $notEndWith: 'z' } })).toEqual(golden({ name: { $notEndsWith: 'z' } }));
  });
  it('$like / $notLike / $iLike / $notILike', () => {
    expect(golden({ name: { $like: 'a%b_\\%*' } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "(?s)^a.*b.\\%\\*\\z",
          ],
          "sql": "select \`id\` from \`gadgets\` where \`gadgets\`.\`name\` regexp ?",
        },
        "postgres": {
          "parameters": [
            "a%b_\\%*",
          ],
          "sql": "select "id" from "gadgets" where "gadgets"."name" like $1 escape '\\'",
        },
        "sqlite": {
          "parameters": [
            "a*b?%[*]",
          ],
          "sql": "select "id" from "gadgets" where "gadgets"."name" glob ?",
        },
      }
    `);
    expect(golden({ name: { $notLike: 'a%' } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "(?s)^a.*\\z",
          ],
          "sql": "select \`id\` from \`gadgets\` where (not coalesce(\`gadgets\`.\`name\` regexp ?, 0) or \`gadgets\`.\`name\` is null)",
        },
        "postgres": {
          "parameters": [
            "a%",
          ],
          "sql": "select "id" from "gadgets" where (not coalesce("gadgets"."name" like $1 escape '\\', false) or "gadgets"."name" is null)",
        },
        "sqlite": {
          "parameters": [
            "a*",
          ],
          "sql": "select "id" from "gadgets" where (not coalesce("gadgets"."name" glob ?, 0) or "gadgets"."name" is null)",
        },
      }
    `);
    expect(golden({ name: { $iLike: 'a%B' } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "(?s)^[aA].*[bB]\\z",
          ],
          "sql": "select \`id\` from \`gadgets\` where \`gadgets\`.\`name\` regexp ?",
        },
        "postgres": {
          "parameters": [
            "a%B",
          ],
          "sql": "select "id" from "gadgets" where "gadgets"."name" ilike $1 escape '\\'",
        },
        "sqlite": {
          "parameters": [
            "a%B",
          ],
          "sql": "select "id" from "gadgets" where "gadgets"."name" like ? escape '\\'",
        },
      }
    `);
    expect(golden({ name: { $notILike: 'a%' } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "(?s)^[aA].*\\z",
          ],
          "sql": "select \`id\` from \`gadgets\` where (not coalesce(\`gadgets\`.\`name\` regexp ?, 0) or \`gadgets\`.\`name\` is null)",
        },
        "postgres": {
          "parameters": [
            "a%",
          ],
          "sql": "select "id" from "gadgets" where (not coalesce("gadgets"."name" ilike $1 escape '\\', false) or "gadgets"."name" is null)",
        },
        "sqlite": {
          "parameters": [
            "a%",
          ],
          "sql": "select "id" from "gadgets" where (not coalesce("gadgets"."name" like ? escape '\\', 0) or "gadgets"."name" is null)",
        },
      }
    `);
  });
  it('$empty / $notEmpty / $exists / $notExists', () => {
    expect(golden({ name: { $empty: true } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "",
          ],
          "sql": "select \`id\` from \`gadgets\` where (\`gadgets\`.\`name\` is null or \`gadgets\`.\`name\` = ?)",
        },
        "postgres": {
          "parameters": [
            "",
          ],
          "sql": "select "id" from "gadgets" where ("gadgets"."name" is null or "gadgets"."name" = $1)",
        },
        "sqlite": {
          "parameters": [
            "",
          ],
          "sql": "select "id" from "gadgets" where ("gadgets"."name" is null or "gadgets"."name" = ?)",
        },
      }
    `);
    expect(golden({ name: { $notEmpty: true } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "",
          ],
          "sql": "select \`id\` from \`gadgets\` where not coalesce((\`gadgets\`.\`name\` is null or \`gadgets\`.\`name\` = ?), 0)",
        },
        "postgres": {
          "parameters": [
            "",
          ],
          "sql": "select "id" from "gadgets" where not coalesce(("gadgets"."name" is null or "gadgets"."name" = $1), false)",
        },
        "sqlite": {
          "parameters": [
            "",
          ],
          "sql": "select "id" from "gadgets" where not coalesce(("gadgets"."name" is null or "gadgets"."name" = ?), 0)",
        },
      }
    `);
    expect(golden({ tags: { $empty: true } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [],
          "sql": "select \`id\` from \`gadgets\` where (\`gadgets\`.\`tags\` is null or json_length(\`gadgets\`.\`tags\`) = 0)",
        },
        "postgres": {
          "parameters": [],
          "sql": "select "id" from "gadgets" where ("gadgets"."tags" is null or jsonb_array_length("gadgets"."tags") = 0)",
        },
        "sqlite": {
          "parameters": [],
          "sql": "select "id" from "gadgets" where ("gadgets"."tags" is null or json_array_length("gadgets"."tags") = 0)",
        },
      }
    `);
    expect(golden({ views: { $exists: true }, day: { $notExists: true } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [],
          "sql": "select \`id\` from \`gadgets\` where (\`gadgets\`.\`views\` is not null and \`gadgets\`.\`day\` is null)",
        },
        "postgres": {
          "parameters": [],
          "sql": "select "id" from "gadgets" where ("gadgets"."views" is not null and "gadgets"."day" is null)",
        },
        "sqlite": {
          "parameters": [],
          "sql": "select "id" from "gadgets" where ("gadgets"."views" is not null and "gadgets"."day" is null)",
        },
      }
    `);
  });
  it('$isTruly / $isFalsy', () => {
    expect(golden({ active: { $isTruly: true } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            1,
          ],
          "sql": "select \`id\` from \`gadgets\` where \`gadgets\`.\`active\` = ?",
        },
        "postgres": {
          "parameters": [
            true,
          ],
          "sql": "select "id" from "gadgets" where "gadgets"."active" = $1",
        },
        "sqlite": {
          "parameters": [
            1,
          ],
          "sql": "select "id" from "gadgets" where "gadgets"."active" = ?",
        },
      }
    `);
    expect(golden({ active: { $isFalsy: true } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            1,
          ],
          "sql": "select \`id\` from \`gadgets\` where (not coalesce(\`gadgets\`.\`active\` = ?, 0) or \`gadgets\`.\`active\` is null)",
        },
        "postgres": {
          "parameters": [
            true,
          ],
          "sql": "select "id" from "gadgets" where (not coalesce("gadgets"."active" = $1, false) or "gadgets"."active" is null)",
        },
        "sqlite": {
          "parameters": [
            1,
          ],
          "sql": "select "id" from "gadgets" where (not coalesce("gadgets"."active" = ?, 0) or "gadgets"."active" is null)",
        },
      }
    `);
  });
  it('date periods on date and dateOnly, in UTC and in a zone', () => {
    expect(golden({ at: { $dateOn: '2026Q1' } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "2026-01-01 00:00:00.000",
            "2026-04-01 00:00:00.000",
          ],
          "sql": "select \`id\` from \`gadgets\` where (\`gadgets\`.\`at\` >= ? and \`gadgets\`.\`at\` < ?)",
        },
        "postgres": {
          "parameters": [
            "2026-01-01T00:00:00.000Z",
            "2026-04-01T00:00:00.000Z",
          ],
          "sql": "select "id" from "gadgets" where ("gadgets"."at" >= $1 and "gadgets"."at" < $2)",
        },
        "sqlite": {
          "parameters": [
            "2026-01-01T00:00:00.000Z",
            "2026-04-01T00:00:00.000Z",
          ],
          "sql": "select "id" from "gadgets" where ("gadgets"."at" >= ? and "gadgets"."at" < ?)",
        },
      }
    `);
    expect(golden({ at: { $dateNotOn: '2026-01' } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "2026-01-01 00:00:00.000",
            "2026-02-01 00:00:00.000",
          ],
          "sql": "select \`id\` from \`gadgets\` where (\`gadgets\`.\`at\` < ? or \`gadgets\`.\`at\` >= ? or \`gadgets\`.\`at\` is null)",
        },
        "postgres": {
          "parameters": [
            "2026-01-01T00:00:00.000Z",
            "2026-02-01T00:00:00.000Z",
          ],
          "sql": "select "id" from "gadgets" where ("gadgets"."at" < $1 or "gadgets"."at" >= $2 or "gadgets"."at" is null)",
        },
        "sqlite": {
          "parameters": [
            "2026-01-01T00:00:00.000Z",
            "2026-02-01T00:00:00.000Z",
          ],
          "sql": "select "id" from "gadgets" where ("gadgets"."at" < ? or "gadgets"."at" >= ? or "gadgets"."at" is null)",
        },
      }
    `);
    expect(golden({ at: { $dateBefore: '2026W05' } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "2026-01-26 00:00:00.000",
          ],
          "sql": "select \`id\` from \`gadgets\` where \`gadgets\`.\`at\` < ?",
        },
        "postgres": {
          "parameters": [
            "2026-01-26T00:00:00.000Z",
          ],
          "sql": "select "id" from "gadgets" where "gadgets"."at" < $1",
        },
        "sqlite": {
          "parameters": [
            "2026-01-26T00:00:00.000Z",
          ],
          "sql": "select "id" from "gadgets" where "gadgets"."at" < ?",
        },
      }
    `);
    expect(golden({ at: { $dateNotBefore: '2026' } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "2026-01-01 00:00:00.000",
          ],
          "sql": "select \`id\` from \`gadgets\` where (\`gadgets\`.\`at\` >= ? or \`gadgets\`.\`at\` is null)",
        },
        "postgres": {
          "parameters": [
            "2026-01-01T00:00:00.000Z",
          ],
          "sql": "select "id" from "gadgets" where ("gadgets"."at" >= $1 or "gadgets"."at" is null)",
        },
        "sqlite": {
          "parameters": [
            "2026-01-01T00:00:00.000Z",
          ],
          "sql": "select "id" from "gadgets" where ("gadgets"."at" >= ? or "gadgets"."at" is null)",
        },
      }
    `);
    expect(golden({ at: { $dateAfter: '2026-01-15T10:30' } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "2026-01-15 10:31:00.000",
          ],
          "sql": "select \`id\` from \`gadgets\` where \`gadgets\`.\`at\` >= ?",
        },
        "postgres": {
          "parameters": [
            "2026-01-15T10:31:00.000Z",
          ],
          "sql": "select "id" from "gadgets" where "gadgets"."at" >= $1",
        },
        "sqlite": {
          "parameters": [
            "2026-01-15T10:31:00.000Z",
          ],
          "sql": "select "id" from "gadgets" where "gadgets"."at" >= ?",
        },
      }
    `);
    expect(golden({ at: { $dateNotAfter: '2026-01-15' } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "2026-01-16 00:00:00.000",
          ],
          "sql": "select \`id\` from \`gadgets\` where (\`gadgets\`.\`at\` < ? or \`gadgets\`.\`at\` is null)",
        },
        "postgres": {
          "parameters": [
            "2026-01-16T00:00:00.000Z",
          ],
          "sql": "select "id" from "gadgets" where ("gadgets"."at" < $1 or "gadgets"."at" is null)",
        },
        "sqlite": {
          "parameters": [
            "2026-01-16T00:00:00.000Z",
          ],
          "sql": "select "id" from "gadgets" where ("gadgets"."at" < ? or "gadgets"."at" is null)",
        },
      }
    `);
    expect(golden({ at: { $dateBetween: ['2026-01', '2026-03'] } }, 'Europe/Berlin')).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "2025-12-31 23:00:00.000",
            "2026-03-31 22:00:00.000",
          ],
          "sql": "select \`id\` from \`gadgets\` where (\`gadgets\`.\`at\` >= ? and \`gadgets\`.\`at\` < ?)",
        },
        "postgres": {
          "parameters": [
            "2025-12-31T23:00:00.000Z",
            "2026-03-31T22:00:00.000Z",
          ],
          "sql": "select "id" from "gadgets" where ("gadgets"."at" >= $1 and "gadgets"."at" < $2)",
        },
        "sqlite": {
          "parameters": [
            "2025-12-31T23:00:00.000Z",
            "2026-03-31T22:00:00.000Z",
          ],
          "sql": "select "id" from "gadgets" where ("gadgets"."at" >= ? and "gadgets"."at" < ?)",
        },
      }
    `);
    expect(golden({ day: { $dateOn: '2026-01-15T23:30:00Z' } }, '+02:00')).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "2026-01-16",
            "2026-01-17",
          ],
          "sql": "select \`id\` from \`gadgets\` where (\`gadgets\`.\`day\` >= ? and \`gadgets\`.\`day\` < ?)",
        },
        "postgres": {
          "parameters": [
            "2026-01-16",
            "2026-01-17",
          ],
          "sql": "select "id" from "gadgets" where ("gadgets"."day" >= $1 and "gadgets"."day" < $2)",
        },
        "sqlite": {
          "parameters": [
            "2026-01-16",
            "2026-01-17",
          ],
          "sql": "select "id" from "gadgets" where ("gadgets"."day" >= ? and "gadgets"."day" < ?)",
        },
      }
    `);
  });
  it('$anyOf / $noneOf / $match / $notMatch / $arrayEmpty / $arrayNotEmpty', () => {
    expect(golden({ tags: { $anyOf: ['a', 1] } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            ""a"",
            "1",
          ],
          "sql": "select \`id\` from \`gadgets\` where exists (select 1 from json_table(\`gadgets\`.\`tags\`, '$[*]' columns (v json path '$')) as corral_el where cast(corral_el.v as binary) in (cast(? as binary), cast(? as binary)))",
        },
        "postgres": {
          "parameters": [
            ""a"",
            "1",
          ],
          "sql": "select "id" from "gadgets" where exists (select 1 from jsonb_array_elements("gadgets"."tags") as corral_el(v) where corral_el.v in (cast($1 as jsonb), cast($2 as jsonb)))",
        },
        "sqlite": {
          "parameters": [
            "a",
            1,
          ],
          "sql": "select "id" from "gadgets" where exists (select 1 from json_each("gadgets"."tags") as corral_el where ((corral_el.type = 'text' and corral_el.value in (?)) or (corral_el.type in ('integer', 'real') and corral_el.value in (?))))",
        },
      }
    `);
    expect(golden({ tags: { $noneOf: ['a'] } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            ""a"",
          ],
          "sql": "select \`id\` from \`gadgets\` where (not coalesce(exists (select 1 from json_table(\`gadgets\`.\`tags\`, '$[*]' columns (v json path '$')) as corral_el where cast(corral_el.v as binary) in (cast(? as binary))), 0) or \`gadgets\`.\`tags\` is null)",
        },
        "postgres": {
          "parameters": [
            ""a"",
          ],
          "sql": "select "id" from "gadgets" where (not coalesce(exists (select 1 from jsonb_array_elements("gadgets"."tags") as corral_el(v) where corral_el.v in (cast($1 as jsonb))), false) or "gadgets"."tags" is null)",
        },
        "sqlite": {
          "parameters": [
            "a",
          ],
          "sql": "select "id" from "gadgets" where (not coalesce(exists (select 1 from json_each("gadgets"."tags") as corral_el where ((corral_el.type = 'text' and corral_el.value in (?)))), 0) or "gadgets"."tags" is null)",
        },
      }
    `);
    expect(golden({ tags: { $match: ['b', 'a', 2] } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            ""a"",
            ""b"",
            "2",
            ""a"",
            ""b"",
            "2",
          ],
          "sql": "select \`id\` from \`gadgets\` where (not exists (select 1 from json_table(\`gadgets\`.\`tags\`, '$[*]' columns (v json path '$')) as corral_el where not coalesce(cast(corral_el.v as binary) in (cast(? as binary), cast(? as binary), cast(? as binary)), 0)) and (select count(distinct cast(corral_el.v as binary)) from json_table(\`gadgets\`.\`tags\`, '$[*]' columns (v json path '$')) as corral_el where cast(corral_el.v as binary) in (cast(? as binary), cast(? as binary), cast(? as binary))) = 3)",
        },
        "postgres": {
          "parameters": [
            ""a"",
            ""b"",
            "2",
            ""a"",
            ""b"",
            "2",
          ],
          "sql": "select "id" from "gadgets" where (not exists (select 1 from jsonb_array_elements("gadgets"."tags") as corral_el(v) where not coalesce(corral_el.v in (cast($1 as jsonb), cast($2 as jsonb), cast($3 as jsonb)), false)) and (select count(distinct corral_el.v) from jsonb_array_elements("gadgets"."tags") as corral_el(v) where corral_el.v in (cast($4 as jsonb), cast($5 as jsonb), cast($6 as jsonb))) = 3)",
        },
        "sqlite": {
          "parameters": [
            "a",
            "b",
            2,
            "a",
            "b",
            2,
          ],
          "sql": "select "id" from "gadgets" where (not exists (select 1 from json_each("gadgets"."tags") as corral_el where not coalesce(((corral_el.type = 'text' and corral_el.value in (?, ?)) or (corral_el.type in ('integer', 'real') and corral_el.value in (?))), 0)) and (select count(distinct corral_el.value) from json_each("gadgets"."tags") as corral_el where ((corral_el.type = 'text' and corral_el.value in (?, ?)) or (corral_el.type in ('integer', 'real') and corral_el.value in (?)))) = 3)",
        },
      }
    `);
    expect(golden({ tags: { $notMatch: [1] } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [
            "1",
            "1",
          ],
          "sql": "select \`id\` from \`gadgets\` where (not coalesce((not exists (select 1 from json_table(\`gadgets\`.\`tags\`, '$[*]' columns (v json path '$')) as corral_el where not coalesce(cast(corral_el.v as binary) in (cast(? as binary)), 0)) and (select count(distinct cast(corral_el.v as binary)) from json_table(\`gadgets\`.\`tags\`, '$[*]' columns (v json path '$')) as corral_el where cast(corral_el.v as binary) in (cast(? as binary))) = 1), 0) or \`gadgets\`.\`tags\` is null)",
        },
        "postgres": {
          "parameters": [
            "1",
            "1",
          ],
          "sql": "select "id" from "gadgets" where (not coalesce((not exists (select 1 from jsonb_array_elements("gadgets"."tags") as corral_el(v) where not coalesce(corral_el.v in (cast($1 as jsonb)), false)) and (select count(distinct corral_el.v) from jsonb_array_elements("gadgets"."tags") as corral_el(v) where corral_el.v in (cast($2 as jsonb))) = 1), false) or "gadgets"."tags" is null)",
        },
        "sqlite": {
          "parameters": [
            1,
            1,
          ],
          "sql": "select "id" from "gadgets" where (not coalesce((not exists (select 1 from json_each("gadgets"."tags") as corral_el where not coalesce(((corral_el.type in ('integer', 'real') and corral_el.value in (?))), 0)) and (select count(distinct corral_el.value) from json_each("gadgets"."tags") as corral_el where ((corral_el.type in ('integer', 'real') and corral_el.value in (?)))) = 1), 0) or "gadgets"."tags" is null)",
        },
      }
    `);
    expect(golden({ tags: { $arrayEmpty: true } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [],
          "sql": "select \`id\` from \`gadgets\` where json_length(\`gadgets\`.\`tags\`) = 0",
        },
        "postgres": {
          "parameters": [],
          "sql": "select "id" from "gadgets" where jsonb_array_length("gadgets"."tags") = 0",
        },
        "sqlite": {
          "parameters": [],
          "sql": "select "id" from "gadgets" where json_array_length("gadgets"."tags") = 0",
        },
      }
    `);
    expect(golden({ tags: { $arrayNotEmpty: true } })).toMatchInlineSnapshot(`
      {
        "mysql": {
          "parameters": [],
          "sql": "select \`id\` from \`gadgets\` where (\`gadgets\`.\`tags\` is not null and not coalesce(json_length(\`gadgets\`.\`tags\`) = 0, 0))",
        },
        "postgres": {
          "parameters": [],
          "sql": "select "id" from "gadgets" where ("gadgets"."tags" is not null and not coalesce(jsonb_array_length("gadgets"."tags") = 0, false))",
        },
        "sqlite": {
          "parameters": [],
          "sql": "select "id" from "gadgets" where ("gadgets"."tags" is not null and not coalesce(json_array_length("gadgets"."tags") = 0, 0))",
        },
      }
    `);
  });
});
