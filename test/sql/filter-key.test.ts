import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bindFilter } from '../../src/plan/bind-filter.js';
import { bindSort } from '../../src/plan/bind-sort.js';
import { TRUE_NODE, type FilterNode } from '../../src/plan/filter-node.js';
import type { ReadPlan } from '../../src/plan/read-plan.js';
import { parseTimeZone } from '../../src/request/time-zone.js';
import type { Collection, Field, Relation } from '../../src/schema/collection.js';
import { SchemaSnapshot } from '../../src/schema/schema-snapshot.js';
import type { CollectionDef, Dialect, FieldDef, RelationDef } from '../../src/schema/types.js';
import { filterKey, filterToSql } from '../../src/sql/filter-sql.js';
import { selectStatement, type RelatedScope } from '../../src/sql/select-rows.js';
import { SqlPass } from '../../src/sql/sql-pass.js';
import { conditionArb, filterArb, TERMS, ZONES } from '../support/filter-arbitraries.js';
import { compilerFor } from './golden-support.js';

/**
 * The shape cache keeps one SQL text per key and, on a hit, binds the values of a key-only
 * pass. So on every dialect: a key-only pass must push exactly the values Kysely binds for the
 * SQL the emitting pass builds, and every statement with one key must have one SQL text.
 * Checked over the differential test's random filters (every operator, plus association paths
 * and `$search`, each search also in the word orders and forms the store may give it), over pairs of filters of every node kind that differ only in their values,
 * and over read statements with sorts through associations, keyset (cursor) conditions,
 * selected sort values, limit and offset. Compile only (Kysely with no database behind it).
 */

const DIALECTS: Dialect[] = ['sqlite', 'postgres', 'mysql'];
const SEED = 0x5eed2026;

const field = (name: string, type: FieldDef['type'], extra: Partial<FieldDef> = {}): FieldDef => ({ name, type, allowNull: true, unique: false, index: false, ...extra });
const SCALARS = (): FieldDef[] => [
  field('label', 'string', { searchable: true }),
  field('note', 'text', { searchable: true }),
  field('rank', 'integer'),
  field('on', 'boolean'),
  field('at', 'date'),
  field('day', 'dateOnly'),
  field('tags', 'array'),
];
const collection = (name: string, fields: FieldDef[], relations: RelationDef[] = []): CollectionDef => ({
  name,
  timestamps: false,
  autoGenId: true,
  idType: 'integer',
  filterTargetKey: 'id',
  fields: [field('id', 'integer', { allowNull: false, primaryKey: true, autoIncrement: true, system: 'id' }), ...fields],
  relations,
});

/** widgets → owner (belongsTo), parts (hasMany), links (belongsToMany); all with the widget fields, so one condition fits every path. */
function widgetsOf(dialect: Dialect): Collection {
  const snapshot = new SchemaSnapshot(
    1,
    [
      collection('owners', SCALARS()),
      collection('parts', [...SCALARS(), field('widgetId', 'integer')]),
      collection('widgets_links', [field('widgetId', 'integer'), field('ownerId', 'integer')]),
      collection('widgets', [...SCALARS(), field('ownerId', 'integer')], [
        { name: 'owner', type: 'belongsTo', target: 'owners', foreignKey: 'ownerId', targetKey: 'id', onDelete: 'SET NULL' },
        { name: 'parts', type: 'hasMany', target: 'parts', foreignKey: 'widgetId', sourceKey: 'id', onDelete: 'SET NULL' },
        { name: 'links', type: 'belongsToMany', target: 'owners', through: 'widgets_links', foreignKey: 'widgetId', otherKey: 'ownerId', sourceKey: 'id', targetKey: 'id', onDelete: 'SET NULL' },
      ]),
    ],
    dialect,
  );
  return snapshot.get('widgets')!;
}

/** The random filters: the differential test's, through association paths, `$search`, and all of them together. */
const pathArb = fc.tuple(fc.constantFrom('owner', 'parts', 'links'), conditionArb).map(([relation, condition]) => ({ [relation]: condition }));
const searchArb = fc.constantFrom(...TERMS, 'apple pie', 'red fruit', 'a b c d').map((text) => ({ $search: text }));
const randomFilterArb = fc.oneof(
  { weight: 4, arbitrary: filterArb },
  { weight: 2, arbitrary: pathArb },
  { weight: 1, arbitrary: searchArb },
  { weight: 1, arbitrary: fc.tuple(filterArb, pathArb, searchArb).map((items) => ({ $and: items })) },
);
const RANDOM_FILTERS = fc.sample(fc.tuple(randomFilterArb, fc.option(fc.constantFrom(...ZONES))), { seed: SEED, numRuns: 400 });

interface Compiled {
  key: string;
  params: unknown[];
  sql: string;
  parameters: readonly unknown[];
}

function compileFilter(dialect: Dialect, node: FilterNode): Compiled {
  const { key, params } = filterKey(node, dialect);
  const query = compilerFor(dialect).selectFrom('widgets').select('id').where((eb) => filterToSql(node, eb, dialect, 'widgets')).compile();
  return { key, params, sql: query.sql, parameters: query.parameters };
}

function compilePlan(dialect: Dialect, plan: ReadPlan, related: RelatedScope): Compiled {
  const statement = selectStatement(compilerFor(dialect), plan, related);
  const keyOnly = new SqlPass(dialect, false);
  statement(keyOnly);
  const emitting = new SqlPass(dialect, true);
  const query = statement(emitting)!.compile();
  // The emitting pass writes the same key and values as the key-only pass the cache looks up with.
  expect(emitting.key).toBe(keyOnly.key);
  expect(emitting.params).toEqual(keyOnly.params);
  return { key: keyOnly.key, params: keyOnly.params, sql: query.sql, parameters: query.parameters };
}

/** Asserts one SQL text per key and the key pass's values equal Kysely's; returns how many keys were shared by different values. */
function checkKeys(all: readonly Compiled[]): number {
  const byKey = new Map<string, { sql: string; values: Set<string> }>();
  for (const compiled of all) {
    expect(compiled.params, compiled.sql).toEqual([...compiled.parameters]);
    const seen = byKey.get(compiled.key);
    const values = JSON.stringify(compiled.params);
    if (seen === undefined) byKey.set(compiled.key, { sql: compiled.sql, values: new Set([values]) });
    else {
      expect(compiled.sql, `key ${compiled.key}`).toBe(seen.sql);
      seen.values.add(values);
    }
  }
  return [...byKey.values()].filter((entry) => entry.values.size > 1).length;
}

/** Values for variant 0 and 1 of each generator: same structure, different values. */
const TEXTS = [['ab'], ['c%_\\d']] as const;
const PATTERNS = ['a%', 'B_c\\%*?['] as const;
const ELEMENTS = [['x', 1, 'y'], ['[z]', 2.5, '"q"']] as const;

/** Every node kind, each a function of the variant; a new kind does not compile here until it has a generator. */
const GENERATORS: Record<FilterNode['kind'], (w: Collection, v: 0 | 1) => FilterNode[]> = {
  const: () => [{ kind: 'const', value: true }, { kind: 'const', value: false }],
  compare: (w, v) =>
    (['eq', 'ne', 'gt', 'gte', 'lt', 'lte'] as const).flatMap((op): FilterNode[] => [
      { kind: 'compare', field: f(w, 'label'), op, value: ['a', 'zz'][v] },
      { kind: 'compare', field: f(w, 'rank'), op, value: [1, 99][v] },
      { kind: 'compare', field: f(w, 'on'), op, value: [true, false][v] },
      { kind: 'compare', field: f(w, 'at'), op, value: [new Date('2026-01-02T03:04:05.000Z'), new Date('1999-12-31T23:59:59.999Z')][v] },
    ]),
  isNull: (w) => [
    { kind: 'isNull', field: f(w, 'label'), negate: false },
    { kind: 'isNull', field: f(w, 'rank'), negate: true },
  ],
  in: (w, v) => [
    { kind: 'in', field: f(w, 'rank'), values: [[1, 2], [7, 8]][v]!, negate: false },
    { kind: 'in', field: f(w, 'rank'), values: [[3], [4]][v]!, negate: true },
    { kind: 'in', field: f(w, 'label'), values: [['a', 'b', 'c'], ['x', 'y', 'z']][v]!, negate: false },
  ],
  and: (w, v) => [{ kind: 'and', items: [{ kind: 'compare', field: f(w, 'label'), op: 'eq', value: ['a', 'b'][v] }, { kind: 'isNull', field: f(w, 'rank'), negate: false }] }],
  or: (w, v) => [{ kind: 'or', items: [{ kind: 'compare', field: f(w, 'rank'), op: 'gt', value: [1, 2][v] }, { kind: 'compare', field: f(w, 'label'), op: 'lt', value: ['m', 'n'][v] }] }],
  not: (w, v) => [{ kind: 'not', item: { kind: 'compare', field: f(w, 'label'), op: 'eq', value: ['a', 'b'][v] } }],
  text: (w, v) =>
    (['includes', 'startsWith', 'endsWith'] as const).flatMap((op): FilterNode[] => [
      { kind: 'text', field: f(w, 'label'), op, values: [...TEXTS[v]] },
      { kind: 'text', field: f(w, 'note'), op, values: [...TEXTS[v], ...TEXTS[1 - v]!] },
      { kind: 'text', field: f(w, 'label'), op, values: [] },
    ]),
  like: (w, v) => (['like', 'iLike'] as const).map((op): FilterNode => ({ kind: 'like', field: f(w, 'label'), op, pattern: PATTERNS[v] })),
  array: (w, v) =>
    (['anyOf', 'match', 'empty'] as const).flatMap((op): FilterNode[] => [
      { kind: 'array', field: f(w, 'tags'), op, values: [...ELEMENTS[v]] },
      { kind: 'array', field: f(w, 'tags'), op, values: [ELEMENTS[v][0]] },
      { kind: 'array', field: f(w, 'tags'), op, values: [ELEMENTS[v][1]] },
      { kind: 'array', field: f(w, 'tags'), op, values: [] },
    ]),
  exists: (w, v) =>
    (['owner', 'parts', 'links'] as const).map((name): FilterNode => {
      const relation = r(w, name);
      return { kind: 'exists', relation, where: { kind: 'and', items: [{ kind: 'compare', field: f(relation.target, 'label'), op: 'eq', value: ['x', 'y'][v] }, { kind: 'exists', relation: r(w, 'owner'), where: { kind: 'compare', field: f(w, 'rank'), op: 'lt', value: [3, 4][v] } }] } };
    }),
  // Every form the store's word order can give (store/search-stats.ts): a list per word (nested
  // inside the token table on PostgreSQL), and a rare first word probing the others.
  search: (w, v) =>
    [undefined, false, true].flatMap((probe): FilterNode[] =>
      [[['ab'], ['zz']], [['ab', 'c'], ['zz', 'qq']], [['ab', 'c', 'de'], ['qq', 'zz', 'x']]].map(
        (words): FilterNode => ({ kind: 'search', collection: w.name, key: w.key, fields: [f(w, 'label'), f(w, 'note')], words: words[v]!, ...(probe === undefined ? {} : { probe }) }),
      ),
    ),
  linkedThrough: (w, v) => {
    const relation = r(w, 'links');
    if (relation.type !== 'belongsToMany') throw new Error('widgets.links is a belongsToMany');
    return [{ kind: 'linkedThrough', relation, value: [7, 9][v] }];
  },
};

function f(c: Collection, name: string): Field {
  const found = c.fields.get(name);
  if (found === undefined) throw new Error(`${c.name}.${name}`);
  return found;
}

function r(c: Collection, name: string): Relation {
  const found = c.relations.get(name);
  if (found === undefined) throw new Error(`${c.name}.${name}`);
  return found;
}

/**
 * `node` with every `$search` as the store may arrange it (store/search-stats.ts): its words in
 * another order (reversed) and `probe` set as given.
 */
function arranged(node: FilterNode, probe: boolean): FilterNode {
  switch (node.kind) {
    case 'and':
    case 'or':
      return { kind: node.kind, items: node.items.map((item) => arranged(item, probe)) };
    case 'not':
      return { kind: 'not', item: arranged(node.item, probe) };
    case 'exists':
      return { ...node, where: arranged(node.where, probe) };
    case 'search':
      return { ...node, words: [...node.words].reverse(), probe };
    default:
      return node;
  }
}

/** Every generated node of a variant: each alone, and nested in and/or/not with its neighbour. */
function generated(w: Collection, v: 0 | 1): [kind: string, node: FilterNode][] {
  const leaves = Object.entries(GENERATORS).flatMap(([kind, generate]) => generate(w, v).map((node): [string, FilterNode] => [kind, node]));
  const nested = leaves.flatMap(([kind, node], i): [string, FilterNode][] => {
    const next = leaves[(i + 1) % leaves.length]![1];
    return [
      [`and(${kind})`, { kind: 'and', items: [node, next] }],
      [`or(${kind})`, { kind: 'or', items: [next, node] }],
      [`not(${kind})`, { kind: 'not', item: node }],
    ];
  });
  return [...leaves, ...nested];
}

/** Read plans of one structure, variant `v` holding other values (cursor values, offset, filter and scope values). */
function plans(w: Collection, v: 0 | 1): [name: string, plan: ReadPlan, related: RelatedScope][] {
  const owners = r(w, 'owner').target;
  const scoped: RelatedScope = (c) => (c === owners ? { kind: 'compare', field: f(owners, 'label'), op: 'ne', value: ['x', 'y'][v] } : TRUE_NODE);
  const unscoped: RelatedScope = () => TRUE_NODE;
  const where: FilterNode = { kind: 'and', items: [{ kind: 'compare', field: f(w, 'rank'), op: 'gt', value: [1, 2][v] }, { kind: 'text', field: f(w, 'label'), op: 'includes', values: [['a'], ['b']][v]! }] };
  const select = [f(w, 'id'), f(w, 'label')];
  const sorts: [string, string[]][] = [
    ['key', []],
    ['-id', ['-id']],
    ['rank (nullable)', ['rank']],
    ['-label,rank', ['-label', 'rank']],
    ['owner.label', ['owner.label']],
    ['-owner.rank,label', ['-owner.rank', 'label']],
  ];
  const out: [string, ReadPlan, RelatedScope][] = [];
  for (const [sortName, sort] of sorts) {
    const order = bindSort(w, sort);
    // Cursor values: each term NULL or not, in every pattern the first two terms allow.
    const patterns = order.length === 1 ? [[true], [false]] : [[true, true], [true, false], [false, true], [false, false]];
    const value = (term: (typeof order)[number], index: number): unknown =>
      term.field.type.name === 'integer' ? [10, 20][v]! + index : term.field.type.name === 'string' ? ['m', 'n'][v] : null;
    for (const [relatedName, related] of [['scoped', scoped], ['unscoped', unscoped]] as const) {
      out.push([`${sortName}, ${relatedName}, page`, { collection: w, where, select, order, limit: 20, offset: [20, 40][v] }, related]);
      out.push([`${sortName}, ${relatedName}, no filter, no limit`, { collection: w, where: TRUE_NODE, select, order }, related]);
      for (const pattern of patterns) {
        const after = order.map((term, index) => (pattern[index] === false ? null : value(term, index)));
        out.push([`${sortName}, ${relatedName}, cursor ${pattern.join('/')}`, { collection: w, where, select, order, limit: 21, after, selectSortValues: true }, related]);
      }
    }
  }
  return out;
}

describe('one pass writes the shape key and the SQL: same key, same SQL text', () => {
  for (const dialect of DIALECTS) {
    describe(dialect, () => {
      const widgets = widgetsOf(dialect);

      it(`random filters of the differential generator (paths, $search, time zones; seed ${SEED}): one SQL text per key, binding the key pass's values`, () => {
        // Each filter as bound, and with its searches arranged both ways the store may arrange them.
        const compiled = RANDOM_FILTERS.flatMap(([raw, zone]) => {
          const node = bindFilter(raw, widgets, zone === null ? undefined : parseTimeZone(zone));
          return [node, arranged(node, false), arranged(node, true)].map((each) => compileFilter(dialect, each));
        });
        // The generator repeats structures with other values: the property is exercised, not vacuous.
        expect(checkKeys(compiled)).toBeGreaterThan(20);
      });

      const pairs = generated(widgets, 0).map(([kind, node], i) => [kind, node, generated(widgets, 1)[i]![1]] as const);
      for (const [kind, first, second] of pairs.filter(([name]) => !name.includes('('))) {
        it(`${kind}: nodes differing only in values have one key and one SQL text, each binding its own values`, () => {
          const a = compileFilter(dialect, first);
          const b = compileFilter(dialect, second);
          expect(b.key).toBe(a.key);
          expect(b.sql).toBe(a.sql);
          expect(a.params).toEqual([...a.parameters]);
          expect(b.params).toEqual([...b.parameters]);
        });
      }

      it('every generated node kind, alone and nested: one SQL text per key', () => {
        const compiled = pairs.flatMap(([, first, second]) => [compileFilter(dialect, first), compileFilter(dialect, second)]);
        expect(checkKeys(compiled)).toBeGreaterThan(pairs.length / 2);
      });

      it('$search: every SQL form has its own key, and the word order is values only', () => {
        const forms = ['fox', 'quick fox', 'quick brown fox'].flatMap((text) => {
          const node = bindFilter({ $search: text }, widgets);
          return [node, arranged(node, false), arranged(node, true)].map((each) => compileFilter(dialect, each));
        });
        checkKeys(forms);
        expect(new Set(forms.map((c) => c.key)).size).toBe(new Set(forms.map((c) => c.sql)).size);
        // Three words: a list per word (nested on PostgreSQL) and a probing rare first word differ in SQL and key.
        const [listed, reordered, probing] = forms.slice(6);
        expect(probing!.sql).not.toBe(listed!.sql);
        expect(probing!.key).not.toBe(listed!.key);
        // Reordered words bind in another order under the same key and text.
        expect(reordered!.key).toBe(listed!.key);
        expect(reordered!.sql).toBe(listed!.sql);
        expect(reordered!.params).not.toEqual(listed!.params);
      });

      const planPairs = plans(widgets, 0).map(([name, plan, related], i) => [name, plan, related, plans(widgets, 1)[i]!] as const);
      for (const [name, plan, related, [, other, otherRelated]] of planPairs) {
        it(`read statement (${name}): other values, same key and SQL text`, () => {
          const a = compilePlan(dialect, plan, related);
          const b = compilePlan(dialect, other, otherRelated);
          expect(b.key).toBe(a.key);
          expect(b.sql).toBe(a.sql);
          expect(a.params).toEqual([...a.parameters]);
          expect(b.params).toEqual([...b.parameters]);
        });
      }

      it('all read statements: one SQL text per key, and different structures get different keys', () => {
        const compiled = planPairs.flatMap(([, plan, related, [, other, otherRelated]]) => [compilePlan(dialect, plan, related), compilePlan(dialect, other, otherRelated)]);
        checkKeys(compiled);
        expect(new Set(compiled.map((c) => c.key)).size).toBe(new Set(compiled.map((c) => c.sql)).size);
      });
    });
  }
});
