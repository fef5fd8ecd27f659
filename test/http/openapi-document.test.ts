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
    expect(Object.keys(create.responses)).toEqual(['201', '400', '401', '403', '404', '405', '408', '409', '413', '415', '431', '500', '503']);
    expect(create.responses['201'].headers.Location).toBeDefined();
    // Authentication: one bearer scheme required everywhere but on the public operations.
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(create.security).toBeUndefined();
    for (const [path, method] of [['/api/auth:signIn', 'post'], ['/api/app:getInfo', 'get'], ['/healthz', 'get'], ['/readyz', 'get']] as const) {
      expect(document.paths[path][method].security, path).toEqual([]);
      // Only signIn answers 401 there (bad credentials); the others never ask for a token.
      expect(document.paths[path][method].responses['401'] !== undefined, path).toBe(path.endsWith(':signIn'));
    }
    expect(Object.keys(document.paths['/api/auth:signIn'].post.responses)).toContain('429');
    for (const path of ['/api/auth:check', '/api/auth:signOut', '/api/users:list', '/api/roles:create', '/api/apiKeys:destroy']) {
      expect(Object.values(document.paths[path] as Record<string, { responses: Record<string, unknown> }>)[0]!.responses['401'], path).toBeDefined();
    }
    expect(document.paths['/api/apiKeys:create'].post.responses['201'].content['application/json'].schema.properties.data.required).toEqual(['id', 'token']);
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

  it('describes webhooks by their own operations, not as a plain collection: create takes a secret, answers never show it', async () => {
    const doc = (await ctx.api.get('/api/openapi.json')).body;
    const create = doc.paths['/api/webhooks:create'].post;
    expect(create.operationId).toBe('webhooks.create');
    expect(create.requestBody.content['application/json'].schema.required).toEqual(expect.arrayContaining(['url', 'secret', 'collections']));
    expect(doc.components.schemas.webhooks).toBeUndefined();
    expect(JSON.stringify(doc.paths['/api/webhooks:list'].get.responses)).not.toContain('secret');
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

describe.each(DIALECTS)('the OpenAPI document describes only what the caller may see, on %s', (dialect) => {
  const ctx = useDialectApp(dialect);
  const as = (name: string) => apiFor(ctx.built, { account: `${name}@corral.test`, password: `${name}-password` });
  const reader = {
    name: 'reader',
    strategy: { actions: [] },
    resources: [
      { name: 'posts', actions: [{ name: 'view', fields: ['id', 'title', 'author'] }, { name: 'create', fields: ['title'] }] },
      { name: 'authors', actions: [{ name: 'view' }] },
    ],
  };

  it('lacks a non-granted collection and a hidden field for a restricted user, root sees both, and a role change shows in the next document', async () => {
    const root = ctx.api;
    await root.collection({ name: 'authors', fields: [{ name: 'name', type: 'string' }] });
    await root.collection({ name: 'posts', fields: [{ name: 'title', type: 'string' }, { name: 'secret', type: 'string' }, { name: 'author', type: 'belongsTo', target: 'authors' }] });
    await root.collection({ name: 'salaries', fields: [{ name: 'amount', type: 'integer' }] });
    expect((await root.post('/api/roles:create', reader)).status).toBe(201);
    for (const name of ['ann', 'bob']) expect((await root.post('/api/users:create', { email: `${name}@corral.test`, password: `${name}-password`, roles: ['reader'] })).status).toBe(201);

    const full = (await root.get('/api/openapi.json')).body;
    expect(Object.keys(full.paths)).toContain('/api/salaries:list');
    expect(full.components.schemas.salaries.properties.amount).toBeDefined();
    expect(full.components.schemas.posts.properties.secret).toBeDefined();
    expect(full.components.schemas['posts.update'].properties.secret).toBeDefined();

    const reply = await as('ann').get('/api/openapi.json');
    expect(reply.status).toBe(200);
    const seen = reply.body;
    const result = await validate(structuredClone(seen));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    const paths = Object.keys(seen.paths);
    const schemas = seen.components.schemas;
    // Not granted at all: no path, schema or tag names it.
    expect(paths.filter((path) => path.includes('salaries'))).toEqual([]);
    expect(Object.keys(schemas).filter((name) => name.startsWith('salaries'))).toEqual([]);
    expect(seen.tags.map((tag: { name: string }) => tag.name)).not.toContain('salaries');
    expect(JSON.stringify(seen)).not.toContain('salaries');
    // Granted actions only; rows show the view grant's fields, write bodies the create grant's.
    for (const action of ['list', 'get', 'count', 'create', 'query']) expect(paths, action).toContain(`/api/posts:${action}`);
    for (const action of ['update', 'destroy', 'updateOrCreate', 'move']) expect(paths, action).not.toContain(`/api/posts:${action}`);
    expect(Object.keys(schemas.posts.properties).sort()).toEqual(['author', 'id', 'title']);
    expect(Object.keys(schemas['posts.create'].properties)).toEqual(['title']);
    expect(schemas['posts.update']).toBeUndefined();
    expect(paths).toContain('/api/posts/{sourceKey}/author:get');
    expect(paths).not.toContain('/api/posts/{sourceKey}/author:set');
    for (const name of Object.keys(schemas).filter((schema) => schema.startsWith('posts'))) expect(JSON.stringify(schemas[name]), name).not.toContain('secret');

    // Same roles, same document; a role change is seen at once (the cache is keyed by the grants).
    expect((await as('bob').get('/api/openapi.json')).text).toBe(reply.text);
    const widened = { ...reader, resources: [...reader.resources, { name: 'salaries', actions: [{ name: 'view', fields: ['id'] }] }] };
    expect((await root.put('/api/roles/reader', widened)).status).toBe(200);
    const after = (await as('ann').get('/api/openapi.json')).body;
    expect(Object.keys(after.paths)).toContain('/api/salaries:list');
    expect(Object.keys(after.components.schemas.salaries.properties)).toEqual(['id']);
  });
});
