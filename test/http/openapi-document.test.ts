import { validate, compileErrors } from '@readme/openapi-parser';
import { buildApp } from '../../src/app.js';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { apiFor, testConfig, useDialectApp } from '../support/test-app.js';
import { defineBlog } from '../support/blog-schema.js';
import { EVERY_TYPE_SCHEMA } from '../support/every-type-schema.js';

describe.each(DIALECTS)('GET /api/openapi.json on %s', (dialect) => {
  const ctx = useDialectApp(dialect);

  it('describes a schema of every field and relation type as a valid OpenAPI 3.1 document', async () => {
    for (const definition of EVERY_TYPE_SCHEMA) await ctx.api.collection(definition);
    const reply = await ctx.api.get('/api/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toMatch(/^application\/json/);
    const document = reply.body;
    expect(document.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(document));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);

    const ops = Object.values(document.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(new Set(ops).size).toBe(ops.length);
    for (const action of ['list', 'get', 'count', 'create', 'update', 'destroy']) expect(ops).toContain(`things.${action}`);
    for (const action of ['list', 'get', 'count', 'create', 'update', 'destroy', 'add', 'set', 'remove', 'toggle']) {
      expect(ops).toContain(`things.parts.${action}`);
      expect(ops).toContain(`things.labels.${action}`);
    }
    for (const action of ['get', 'create', 'update', 'destroy', 'set', 'remove']) expect(ops).toContain(`things.owner.${action}`);
    expect(ops).toContain('things.manual.get');
    expect(ops).toContain('profiles.person.set');
    expect(ops).not.toContain('things.owner.add');
    for (const op of ['collections.list', 'collections.export', 'collections.fields.list', 'app.getInfo', 'healthz', 'readyz']) expect(ops).toContain(op);

    const things = document.components.schemas.things;
    const value = (name: string) => things.properties[name];
    expect(value('big')).toEqual({ anyOf: [{ anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^-?[0-9]+$' }] }, { type: 'null' }] });
    expect(value('price').type).toEqual(['string', 'null']);
    expect(value('at')).toMatchObject({ type: ['string', 'null'], format: 'date-time' });
    expect(value('day')).toMatchObject({ format: 'date' });
    expect(value('pin').writeOnly).toBe(true);
    expect(value('createdAt').readOnly).toBe(true);
    expect(value('parts')).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/parts' } });
    expect(value('owner').anyOf).toEqual([{ $ref: '#/components/schemas/people' }, { type: 'null' }]);
    expect(things.required).toBeUndefined();
    expect(document.components.schemas['people.create'].required).toEqual(['name']);
    expect(document.components.schemas['people.update'].required).toBeUndefined();
    const list = document.paths['/api/things:list'].get;
    expect(list.parameters.map((p: { $ref?: string; name?: string }) => p.name ?? p.$ref!.split('/').pop())).toEqual(
      expect.arrayContaining(['filter', 'filterByTk', 'sort', 'fields', 'except', 'appends', 'page', 'pageSize', 'paginate', 'simplePaginate']),
    );
    const create = document.paths['/api/things:create'].post;
    expect(Object.keys(create.responses)).toEqual(['201', '400', '403', '404', '405', '408', '409', '413', '415', '431', '500', '503']);
    expect(create.responses['201'].headers.Location).toBeDefined();
  });

  it('describes the service endpoints as they answer', async () => {
    // Each answer here is checked against the document by the test helper.
    expect((await ctx.api.get('/healthz')).status).toBe(200);
    expect((await ctx.api.get('/readyz')).body).toEqual({ data: { status: 'ready', dialect } });
    expect((await ctx.api.get('/api/app:getInfo')).body.data).toMatchObject({ name: 'corral', dialect });
    expect((await ctx.api.post('/api/app:getInfo', {})).status).toBe(200);
    expect((await ctx.api.request('DELETE', '/api/app:getInfo')).status).toBe(405);
    expect((await ctx.api.get('/api/app:nothing')).status).toBe(404);
    expect((await ctx.api.get('/api/docs/nothing.js')).body.errors[0].code).toBe('ROUTE_NOT_FOUND');
  });

  it('follows the schema: a new field appears in the next document', async () => {
    await defineBlog(ctx.api);
    const before = (await ctx.api.get('/api/openapi.json')).body;
    expect(before.components.schemas.posts.properties.subtitle).toBeUndefined();
    expect((await ctx.api.post('/api/collections/posts/fields:create', { name: 'subtitle', type: 'string' })).status).toBe(201);
    const after = (await ctx.api.get('/api/openapi.json')).body;
    expect(after.components.schemas.posts.properties.subtitle).toEqual({ type: ['string', 'null'] });
    expect(after.info.description).not.toBe(before.info.description);
  });

  it('follows a schema change made on another node within the poll interval', async () => {
    const other = await buildApp(testConfig(ctx.database));
    try {
      const otherApi = apiFor(other);
      expect((await otherApi.get('/api/openapi.json')).body.components.schemas.posts.properties.rating).toBeUndefined();
      expect((await ctx.api.post('/api/collections/posts/fields:create', { name: 'rating', type: 'integer' })).status).toBe(201);
      const deadline = Date.now() + 5000;
      let seen: unknown;
      while (seen === undefined && Date.now() < deadline) {
        seen = (await otherApi.get('/api/openapi.json')).body.components.schemas.posts.properties.rating;
        if (seen === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(seen).toEqual({ type: ['integer', 'null'] });
    } finally {
      await other.close();
    }
  });
});
