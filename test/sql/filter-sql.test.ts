import { describe, expect, it } from 'vitest';
import { bindFilter } from '../../src/plan/bind-filter.js';
import { FALSE_NODE, TRUE_NODE, type FilterNode } from '../../src/plan/filter-node.js';
import type { Dialect } from '../../src/schema/types.js';
import { filterKey, filterToSql } from '../../src/sql/filter-sql.js';
import { CASES } from './filter-cases.js';
import { compilerFor, goldenSnapshot } from './golden-support.js';

/**
 * Golden SQL of the filter compiler on each dialect: the exact WHERE text and parameters of
 * `select id from posts where …` for every node kind and operator (no database: Kysely
 * compiles only). The shape-cache key's parameters must equal the compiler's, in order.
 * A new FilterNode kind adds a raw filter to filter-cases.ts and its three lines here.
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
  "exists nested": {
    sqlite: ["(exists (select 1 from \"comments\" as \"r1\" where \"r1\".\"postId\" = \"posts\".\"id\" and \"r1\".\"body\" = ?) and exists (select 1 from \"authors\" as \"r2\" where \"r2\".\"id\" = \"posts\".\"authorId\" and (\"r2\".\"name\" <> ? or \"r2\".\"name\" is null)))", ["x", "y"]],
    postgres: ["(exists (select 1 from \"comments\" as \"r1\" where \"r1\".\"postId\" = \"posts\".\"id\" and \"r1\".\"body\" = $1) and exists (select 1 from \"authors\" as \"r2\" where \"r2\".\"id\" = \"posts\".\"authorId\" and (\"r2\".\"name\" <> $2 or \"r2\".\"name\" is null)))", ["x", "y"]],
    mysql: ["(exists (select 1 from `comments` as `r1` where `r1`.`postId` = `posts`.`id` and `r1`.`body` = ?) and exists (select 1 from `authors` as `r2` where `r2`.`id` = `posts`.`authorId` and (`r2`.`name` <> ? or `r2`.`name` is null)))", ["x", "y"]],
  },
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
