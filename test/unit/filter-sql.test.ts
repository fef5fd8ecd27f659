import {
  DummyDriver, Kysely, MysqlAdapter, MysqlIntrospector, MysqlQueryCompiler, PostgresAdapter, PostgresIntrospector,
  PostgresQueryCompiler, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type Dialect as KyselyDialect,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import type { DynamicDb } from '../../src/db/database.js';
import { bindFilter } from '../../src/plan/bind-filter.js';
import { parseTimeZone } from '../../src/plan/time-zone.js';
import { compileCollection } from '../../src/schema/collection.js';
import { normalizeCollection } from '../../src/schema/normalize-collection.js';
import type { CollectionDef, Dialect } from '../../src/schema/types.js';
import { filterKey, filterToSql } from '../../src/sql/filter-sql.js';

/**
 * Golden SQL of the filter compiler: for each operator, the exact SQL text and parameters on
 * sqlite, postgres and mysql, compiled with each dialect's own Kysely compiler and no database.
 * The shape's parameters must equal the compiled ones (the query cache relies on it).
 */

const KYSELY_DIALECTS: Record<Dialect, () => KyselyDialect> = {
  sqlite: () => ({
    createAdapter: () => new SqliteAdapter(), createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db), createQueryCompiler: () => new SqliteQueryCompiler(),
  }),
  postgres: () => ({
    createAdapter: () => new PostgresAdapter(), createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db), createQueryCompiler: () => new PostgresQueryCompiler(),
  }),
  mysql: () => ({
    createAdapter: () => new MysqlAdapter(), createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new MysqlIntrospector(db), createQueryCompiler: () => new MysqlQueryCompiler(),
  }),
};

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

function compile(dialect: Dialect, filter: unknown, zone?: string): { sql: string; parameters: readonly unknown[] } {
  const normalized: unknown = normalizeCollection(DEFINITION);
  const def = (typeof normalized === 'object' && normalized !== null && 'def' in normalized ? normalized.def : normalized) as CollectionDef;
  const collection = compileCollection(def, dialect);
  const node = bindFilter(filter, collection, zone === undefined ? undefined : parseTimeZone(zone));
  const db = new Kysely<DynamicDb>({ dialect: KYSELY_DIALECTS[dialect]() });
  const compiled = db.selectFrom('gadgets').select('id').where((eb) => filterToSql(node, eb, dialect, 'gadgets')).compile();
  expect(filterKey(node, dialect).params).toEqual(compiled.parameters);
  return { sql: compiled.sql, parameters: compiled.parameters };
}

const golden = (filter: unknown, zone?: string) => ({
  sqlite: compile('sqlite', filter, zone),
  postgres: compile('postgres', filter, zone),
  mysql: compile('mysql', filter, zone),
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
