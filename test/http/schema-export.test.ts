import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/database.js';
import { openReadOnly } from '../../src/db/open-read-only.js';
import { BIN, requireBuild } from '../process/support.js';
import { defineBlog } from '../support/blog-schema.js';
import { EVERY_TYPE_SCHEMA } from '../support/every-type-schema.js';
import { apiFor, testConfig, useDialectApp, type TestApi } from '../support/test-app.js';
import { createTestDatabase, DIALECTS } from '../support/test-database.js';

const run = promisify(execFile);

/**
 * Collections as the schema API shows them, in name order, fields in name order (column order
 * may differ), without the list position `sort` (creation order differs).
 */
async function schemaOf(api: TestApi): Promise<unknown[]> {
  const reply = await api.get('/api/collections:list?paginate=false');
  expect(reply.status).toBe(200);
  return (reply.body.data as { name: string; sort?: number; fields: { name: string }[] }[])
    .map(({ sort: _sort, ...collection }) => ({ ...collection, fields: [...collection.fields].sort((a, b) => a.name.localeCompare(b.name)) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

describe.each(DIALECTS)('schema export on %s', (dialect) => {
  const ctx = useDialectApp(dialect);

  it('round-trips every field and relation type: export → apply to an empty database → the same export', async () => {
    for (const definition of EVERY_TYPE_SCHEMA) await ctx.api.collection(definition);
    await defineBlog(ctx.api);
    // Two relations sharing one key column, a cycle, and a field added to a made through collection.
    expect((await ctx.api.post('/api/collections/comments/fields:create', { name: 'post', type: 'belongsTo', target: 'posts' })).status).toBe(201);
    expect((await ctx.api.post('/api/collections/authors/fields:create', { name: 'favourite', type: 'belongsTo', target: 'posts' })).status).toBe(201);
    expect((await ctx.api.post('/api/collections/posts_tags/fields:create', { name: 'weight', type: 'integer', defaultValue: 1 })).status).toBe(201);
    expect((await ctx.api.post('/api/collections:update/posts', { title: 'Blog posts' })).status).toBe(200);
    // The stamp options (createdBy/updatedBy relations to users, one date left out) round-trip too.
    await ctx.api.collection({ name: 'notes', createdBy: true, updatedBy: true, createdAt: false, fields: [{ name: 'text', type: 'string' }] });
    // Indexes: over own fields (made with the collection), over a relation's key column (made last,
    // once the relation made it), over a key column another collection's hasMany made, and over a
    // field added to a made through collection (with its later entry).
    expect((await ctx.api.post('/api/collections:setIndexes/notes', { indexes: [{ fields: ['text', 'updatedAt'], unique: true }, { fields: ['updatedAt'], name: 'notes_recent' }] })).status).toBe(200);
    expect((await ctx.api.post('/api/collections:setIndexes/posts', { indexes: [{ fields: ['authorId', 'title'] }, { fields: ['title'] }] })).status).toBe(200);
    expect((await ctx.api.post('/api/collections:setIndexes/comments', { indexes: [{ fields: ['postId', 'body'] }] })).status).toBe(200);
    expect((await ctx.api.post('/api/collections:setIndexes/posts_tags', { indexes: [{ fields: ['weight'] }] })).status).toBe(200);

    const exported = await ctx.api.get('/api/collections:export');
    expect(exported.status).toBe(200);
    const file = exported.body;
    expect(Object.keys(file)).toEqual(['collections']);
    const withIndexes = (file.collections as { name: string; indexes?: unknown }[]).filter((entry) => entry.indexes !== undefined).map((entry) => entry.name);
    expect(withIndexes).toEqual(['notes', 'posts_tags', 'comments', 'posts']);

    const dir = mkdtempSync(join(tmpdir(), 'corral-export-'));
    const target = await createTestDatabase(dialect);
    try {
      writeFileSync(join(dir, 'schema.json'), JSON.stringify(file));
      const built = await buildApp(testConfig(target, { schemaFile: join(dir, 'schema.json') }));
      try {
        const api = apiFor(built);
        const again = await api.get('/api/collections:export');
        expect(again.body).toEqual(file);
        expect(await schemaOf(api)).toEqual(await schemaOf(ctx.api));
      } finally {
        await built.close();
      }

      // The same from the command line.
      requireBuild();
      const { stdout } = await run(process.execPath, [BIN, 'schema', 'export', '--database', target.url], { env: { ...process.env, CORRAL_SCHEMA: '' } });
      expect(JSON.parse(stdout)).toEqual(file);
    } finally {
      await target.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('`corral schema export` only reads: a database Corral never used is a one-line error, exit 1, and stays as it was', async () => {
    requireBuild();
    const target = await createTestDatabase(dialect);
    try {
      const setup = await openDatabase(target.config);
      await setup.db.schema.createTable('existing').addColumn('id', 'integer').execute();
      await setup.close();
      const failed = await run(process.execPath, [BIN, 'schema', 'export', '--database', target.url], { env: { ...process.env, CORRAL_SCHEMA: '' } }).then(
        () => undefined,
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stdout).toBe('');
      expect(failed?.stderr.trim()).toMatch(/^corral: cannot export: .* is not a Corral database \(its corral_collections table cannot be read\)$/);
      const db = await openReadOnly(target.config, { connectMs: 5000, statementMs: 5000 });
      try {
        expect((await db.kysely.introspection.getTables()).map((table) => table.name)).toEqual(['existing']);
      } finally {
        await db.close();
      }
    } finally {
      await target.drop();
    }
  });
});

describe('schema export of a SQLite path that does not exist', () => {
  it('says so in one line, exits 1 and creates neither the file nor its folder', async () => {
    requireBuild();
    const dir = mkdtempSync(join(tmpdir(), 'corral-export-'));
    try {
      const path = join(dir, 'typo', 'path.sqlite');
      const failed = await run(process.execPath, [BIN, 'schema', 'export', '--database', `sqlite:${path}`], { env: { ...process.env, CORRAL_SCHEMA: '' } }).then(
        () => undefined,
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stdout).toBe('');
      expect(failed?.stderr).toBe(`corral: cannot export: no database at ${path}\n`);
      expect(existsSync(join(dir, 'typo'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
