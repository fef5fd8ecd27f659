import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp } from '../support/test-app.js';

const REFUSED_COLLECTIONS = [
  'pg_shadow', 'pg_description', 'PG_Class', 'sqlite_master', 'sqlite_sequence', 'corral_schema',
  'information_schema', 'mysql', 'performance_schema', 'sys', 'SYS',
];
const REFUSED_FIELDS = ['__proto__', 'constructor', 'prototype', 'ctid', 'xmin', 'xmax', 'cmin', 'cmax', 'tableoid', 'oid', 'rowid', '_rowid_', 'ROWID'];
const LONG = 'c'.repeat(60);

for (const dialect of DIALECTS) {
  describe(`reserved and generated names on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    it.each(REFUSED_COLLECTIONS)('refuses the collection name %s with 400 SCHEMA_INVALID', async (name) => {
      const reply = await ctx.api.post('/api/collections:create', {
        name, timestamps: false, autoGenId: false,
        fields: [{ name: 'usename', type: 'string', primaryKey: true }, { name: 'passwd', type: 'string' }],
      });
      expect(reply.status, reply.text).toBe(400);
      expect(reply.body.errors[0]).toMatchObject({ code: 'SCHEMA_INVALID', field: 'name' });
    });

    it.each(REFUSED_FIELDS)('refuses the field name %s at creation and as a new field', async (name) => {
      const created = await ctx.api.post('/api/collections:create', { name: 'probe', fields: [{ name, type: 'string' }] });
      expect(created.status, created.text).toBe(400);
      expect(created.body.errors[0].code).toBe('SCHEMA_INVALID');
      await ctx.api.collection({ name: `probe_${REFUSED_FIELDS.indexOf(name)}`, fields: [{ name: 'title', type: 'string' }] });
      const added = await ctx.api.post(`/api/collections/probe_${REFUSED_FIELDS.indexOf(name)}/fields:create`, { name, type: 'integer' });
      expect(added.status, added.text).toBe(400);
      expect(added.body.errors[0].code).toBe('SCHEMA_INVALID');
      const relation = await ctx.api.post(`/api/collections/probe_${REFUSED_FIELDS.indexOf(name)}/fields:create`, {
        name: 'other', type: 'belongsTo', target: `probe_${REFUSED_FIELDS.indexOf(name)}`, foreignKey: name,
      });
      expect(relation.status, relation.text).toBe(400);
    });

    it('refuses a belongsToMany whose generated through name would be too long, and leaves nothing behind', async () => {
      await ctx.api.collection({ name: 'tags', fields: [{ name: 'label', type: 'string' }] });
      const reply = await ctx.api.post('/api/collections:create', { name: LONG, fields: [{ name: 'tags', type: 'belongsToMany', target: 'tags' }] });
      expect(reply.status, reply.text).toBe(400);
      expect(reply.body.errors[0].code).toBe('SCHEMA_INVALID');
      expect(reply.body.errors[0].message).toContain('through');
      expect((await ctx.api.get(`/api/${LONG}`)).body.errors[0].code).toBe('COLLECTION_NOT_FOUND');
      // The same collection can be created once the through table is named.
      const named = await ctx.api.post('/api/collections:create', { name: LONG, fields: [{ name: 'tags', type: 'belongsToMany', target: 'tags', through: 'long_tags' }] });
      expect(named.status, named.text).toBe(201);
      expect((await ctx.api.get(`/api/${LONG}`)).status).toBe(200);
    });

    it('refuses a generated foreign key name longer than the identifier limit', async () => {
      await ctx.api.collection({ name: 'owners', fields: [{ name: 'label', type: 'string' }] });
      const reply = await ctx.api.post('/api/collections:create', { name: 'pets', fields: [{ name: 'o'.repeat(62), type: 'belongsTo', target: 'owners' }] });
      expect(reply.status, reply.text).toBe(400);
      expect(reply.body.errors[0]).toMatchObject({ code: 'SCHEMA_INVALID' });
      expect(reply.body.errors[0].message).toContain('foreignKey');
    });

    if (dialect === 'postgres') {
      it('resolves unqualified names in its own schema before pg_catalog', async () => {
        const db = ctx.built.database.db;
        const path = await sql<{ search_path: string }>`show search_path`.execute(db);
        expect(path.rows[0]!.search_path).toBe('"public",pg_catalog');
        // Even a table called like a catalogue table is Corral's own, not the catalogue's.
        await sql`create table pg_shadow (usename text)`.execute(db);
        try {
          const rows = await sql<{ n: string }>`select count(*) as n from pg_shadow`.execute(db);
          expect(Number(rows.rows[0]!.n)).toBe(0);
        } finally {
          await sql`drop table public.pg_shadow`.execute(db);
        }
      });
    }
  });
}
