import { beforeAll, describe, expect, it } from 'vitest';
import { outboxHook } from '../../src/changes/outbox.js';
import { keyFilter } from '../../src/plan/bind-keys.js';
import { bindWriteValues } from '../../src/plan/bind-write-values.js';
import type { Collection, Row } from '../../src/schema/collection.js';
import { referencesOf } from '../../src/store/cascades.js';
import { insertItems } from '../../src/store/insert-items.js';
import { OPEN_GRANTS } from '../../src/store/scope.js';
import { Store, type UnitCaller } from '../../src/store/store.js';
import { updateMatched, updateReturning } from '../../src/store/update-rows.js';
import { deleteWhere } from '../../src/store/write-rows.js';
import type { WriteMode } from '../../src/store/write-mode.js';
import { postgresFusedWrites } from '../../src/write-paths/postgres-fused.js';
import { sqliteDirectWrites } from '../../src/write-paths/sqlite-direct.js';
import { eventsAfter, type ChangeEvent } from '../support/change-event.js';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp } from '../support/test-app.js';
import { TYPED_FIELDS } from '../support/typed-fields.js';

/**
 * The same flat create, update by key and destroy by key run through a store in each write
 * mode the dialect has, and each answers the same rows and records the same changes (and,
 * where the outbox is on, the same events) as the plain transaction path:
 * - `transaction`: the outbox plus a second, empty beforeCommit hook;
 * - `single-statement`: a store without beforeCommit hooks (no outbox);
 * - the fast path of the dialect (`sqlite-direct`, `postgres-fused`): the outbox alone, with
 *   the fast path wired as app.ts does.
 * MySQL has no RETURNING: every write there is a transaction, whatever the store has.
 */
const FIELDS = [{ name: 'code', type: 'string', unique: true, allowNull: false }, ...TYPED_FIELDS];
const VALUES = { s: 'short', t: 'ünï ✓', i: -42, b: '9007199254740993', f: 1.5, d: 1e-7, dec: '123.456', bool: true, dt: '2026-11-22T10:11:12.345Z', day: '2026-11-22', tm: '10:11:12', j: { a: [1, null] }, arr: [1, 2], u: '0b6c3a9e-5f0e-4c8e-9d5b-7a1f2e3d4c5b', n: 'V1StGXR8_Z5jdHi6B-myT', pw: 'secret-password' };
const CHANGED = { s: 'other', i: 7, b: '-5', bool: false, j: [], dec: '0.5', dt: null, pw: 'another' };
const CALLER: UnitCaller = { request: { id: 'write-modes' }, grants: OPEN_GRANTS, log: { error: () => undefined } };
/** What differs between two rows written one after the other. */
const OWN = ['id', 'code', 'createdAt', 'updatedAt'];

const strip = (item: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(item).filter(([name]) => !OWN.includes(name)));

interface Run {
  /** The mode each write's unit ran in (the last unit of a write: a fast unit that could not run falls back to a transaction). */
  modes: WriteMode['kind'][];
  /** The answered rows, decoded, without their own id, code and times. */
  answers: unknown[];
  /** What each write recorded: collection, kind, and whether the key is the row's. */
  changes: string[];
}

for (const dialect of DIALECTS) {
  describe(`write modes on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let collection: Collection;
    const stores: Record<'transaction' | 'single' | 'fast', Store> = {} as never;

    beforeAll(async () => {
      await ctx.api.collection({ name: 'moded', fields: FIELDS });
      const { database, schema } = ctx.built;
      collection = schema.snapshot.get('moded')!;
      const make = (): Store => new Store(database, { references: referencesOf(() => schema.snapshot) });
      stores.transaction = make();
      stores.transaction.outbox(outboxHook(() => schema.snapshot));
      stores.transaction.beforeCommit(() => undefined);
      stores.single = make();
      stores.fast = make();
      // As app.ts wires it.
      stores.fast.outbox(outboxHook(() => schema.snapshot), sqliteDirectWrites(database.executor) ?? (database.dialect === 'postgres' ? postgresFusedWrites : undefined));
    });

    /** Creates, updates and destroys one row through `store`, recording how each write ran. */
    const writeThrough = async (store: Store, code: string): Promise<Run> => {
      const run: Run = { modes: [], answers: [], changes: [] };
      const removeAfter = store.afterCommit((changes) => {
        for (const [name, byKind] of changes.collections()) {
          for (const kind of ['created', 'updated', 'deleted'] as const) for (const change of byKind[kind]) run.changes.push(`${name}:${kind}:${typeof change.key}`);
        }
      });
      const now = new Date();
      const answer = (rows: Row[]) => run.answers.push(rows.map((row) => strip(collection.decode(row, collection.visible))));
      try {
        const created = await bindWriteValues(collection, { code, ...VALUES }, 'create', now);
        const createPlan = store.plan(collection, { action: 'create', items: 1, associations: false, sortFields: false });
        const [row] = await store.write(CALLER, collection, async (unit) => {
          run.modes.push(unit.mode.kind);
          return insertItems(unit, collection, [created]);
        }, createPlan);
        answer([row!]);
        const id = collection.decode(row!, [collection.key])[collection.key.name];
        const byKey = keyFilter(collection, [id]);
        const changed = await bindWriteValues(collection, CHANGED, 'update', now);
        const updatePlan = store.plan(collection, { action: 'update', oneKey: true, associations: false, values: true, ifMatch: false });
        expect(updatePlan.oneStatement).toBe(dialect !== 'mysql');
        answer(await store.write(CALLER, collection, async (unit) => {
          run.modes.push(unit.mode.kind);
          // As the update action does: the one-statement UPDATE … RETURNING where the plan allows it.
          return updatePlan.oneStatement ? updateReturning(unit, collection, changed, byKey) : updateMatched(unit, collection, changed, byKey, { now, updateAssociationValues: new Set() });
        }, updatePlan));
        const destroyPlan = store.plan(collection, { action: 'destroy', oneKey: true, ifMatch: false });
        const modesBefore = run.modes.length;
        const deleted = await store.write(CALLER, collection, async (unit) => {
          run.modes[modesBefore] = unit.mode.kind;
          return deleteWhere(unit, collection, byKey);
        }, destroyPlan);
        run.answers.push(deleted.length);
      } finally {
        removeAfter();
      }
      return run;
    };

    /** The events of `code`'s row, without what differs between two rows. */
    const eventsOf = async (code: string): Promise<unknown[]> => {
      const all = await eventsAfter(ctx.api, 0, 'moded');
      const mine = all.filter((event: ChangeEvent) => event.data.code === code);
      return mine.map((event) => ({ action: event.action, keyIsId: event.key === event.data.id, data: strip(event.data) }));
    };

    it('each mode answers the same rows and records the same changes as the transaction path', async () => {
      const plain = await writeThrough(stores.transaction, 'plain');
      const single = await writeThrough(stores.single, 'single');
      const fast = await writeThrough(stores.fast, 'fast');
      expect(plain.modes).toEqual(['transaction', 'transaction', 'transaction']);
      const expected: Record<string, [WriteMode['kind'][], WriteMode['kind'][]]> = {
        // SQLite's direct unit runs creates and updates; a destroy falls back to the transaction.
        sqlite: [['single-statement', 'single-statement', 'single-statement'], ['sqlite-direct', 'sqlite-direct', 'transaction']],
        postgres: [['single-statement', 'single-statement', 'single-statement'], ['postgres-fused', 'postgres-fused', 'postgres-fused']],
        mysql: [['transaction', 'transaction', 'transaction'], ['transaction', 'transaction', 'transaction']],
      };
      expect(single.modes).toEqual(expected[dialect]![0]);
      expect(fast.modes).toEqual(expected[dialect]![1]);
      expect(plain.answers).toHaveLength(3);
      expect(single.answers).toEqual(plain.answers);
      expect(fast.answers).toEqual(plain.answers);
      expect(plain.changes).toEqual(['moded:created:number', 'moded:updated:number', 'moded:deleted:number']);
      expect(single.changes).toEqual(plain.changes);
      expect(fast.changes).toEqual(plain.changes);
    });

    it('the fast path writes the same events as the transaction path; a store without the outbox writes none', async () => {
      const plain = await eventsOf('plain');
      expect(plain.map((event) => (event as { action: string }).action)).toEqual(['create', 'update', 'destroy']);
      expect(await eventsOf('fast')).toEqual(plain);
      expect(await eventsOf('single')).toEqual([]);
    });
  });
}
