import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp } from '../support/test-app.js';

const names = (reply: { body: { data: { name: string }[] } }) => reply.body.data.map((field) => field.name);

for (const dialect of DIALECTS) {
  describe(`relation definitions on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    it('defines the four relation types with readable defaults and real foreign keys', async () => {
      const api = ctx.api;
      await api.collection({ name: 'authors', fields: [{ name: 'name', type: 'string' }] });
      await api.collection({ name: 'tags', fields: [{ name: 'label', type: 'string' }] });
      await api.collection({ name: 'comments', fields: [{ name: 'body', type: 'text' }] });
      await api.collection({
        name: 'posts',
        fields: [
          { name: 'title', type: 'string' },
          { name: 'author', type: 'belongsTo' },
          { name: 'comments', type: 'hasMany' },
          { name: 'tags', type: 'belongsToMany' },
        ],
      });
      const profile = await api.post('/api/collections:create', { name: 'profiles', fields: [{ name: 'bio', type: 'text' }] });
      expect(profile.status).toBe(201);
      const hasOne = await api.post('/api/collections/authors/fields:create', { name: 'profile', type: 'hasOne', target: 'profiles' });
      expect(hasOne.status, hasOne.text).toBe(201);
      expect(hasOne.body.data).toEqual({ name: 'profile', type: 'hasOne', target: 'profiles', foreignKey: 'authorId', sourceKey: 'id', onDelete: 'SET NULL', collectionName: 'authors', key: 'authors.profile' });

      const postFields = await api.get('/api/collections/posts/fields:list?paginate=false');
      expect(names(postFields)).toEqual(['id', 'createdAt', 'updatedAt', 'title', 'authorId', 'author', 'comments', 'tags']);
      const byName = Object.fromEntries(postFields.body.data.map((field: { name: string }) => [field.name, field]));
      expect(byName.author).toEqual({ name: 'author', type: 'belongsTo', target: 'authors', foreignKey: 'authorId', targetKey: 'id', onDelete: 'SET NULL', collectionName: 'posts', key: 'posts.author', sort: expect.any(Number) });
      expect(byName.comments).toEqual({ name: 'comments', type: 'hasMany', target: 'comments', foreignKey: 'postId', sourceKey: 'id', onDelete: 'SET NULL', collectionName: 'posts', key: 'posts.comments', sort: expect.any(Number) });
      expect(byName.tags).toEqual({ name: 'tags', type: 'belongsToMany', target: 'tags', foreignKey: 'postId', otherKey: 'tagId', sourceKey: 'id', targetKey: 'id', through: 'posts_tags', onDelete: 'CASCADE', collectionName: 'posts', key: 'posts.tags', sort: expect.any(Number) });
      expect(byName.authorId).toMatchObject({ type: 'integer', index: true, references: { collection: 'authors', key: 'id', onDelete: 'SET NULL' } });
      expect(names(await api.get('/api/collections/comments/fields:list'))).toContain('postId');
      expect(names(await api.get('/api/collections/posts_tags/fields:list'))).toEqual(['id', 'createdAt', 'updatedAt', 'postId', 'tagId']);

      // The inverse side shares the key column.
      const inverse = await api.post('/api/collections/comments/fields:create', { name: 'post', type: 'belongsTo' });
      expect(inverse.status, inverse.text).toBe(201);
      expect(inverse.body.data.foreignKey).toBe('postId');

      // Real foreign keys: a missing target is refused, a deleted target nulls the key.
      const author = (await api.post('/api/authors:create', { name: 'ann' })).body.data.id;
      expect((await api.post('/api/posts:create', { title: 'x', authorId: 999 })).body.errors[0].code).toBe('REFERENCE_VIOLATION');
      const post = (await api.post('/api/posts:create', { title: 'p', authorId: author })).body.data.id;
      expect((await api.del(`/api/authors/${author}`)).status).toBe(200);
      expect((await api.get(`/api/posts/${post}`)).body.data.authorId).toBeNull();
    });

    it('refuses bad relation definitions with SCHEMA_INVALID', async () => {
      const api = ctx.api;
      const bad: [string, Record<string, unknown>][] = [
        ['missing target', { name: 'ghost', type: 'belongsTo', target: 'nope' }],
        ['no default target', { name: 'ghost', type: 'hasMany' }],
        ['bad onDelete', { name: 'writer', type: 'belongsTo', target: 'authors', onDelete: 'EXPLODE' }],
        ['foreign key clash with a plain field', { name: 'writer', type: 'belongsTo', target: 'authors', foreignKey: 'title' }],
        ['targetKey not unique', { name: 'writer', type: 'belongsTo', target: 'authors', targetKey: 'name' }],
        ['option of another type', { name: 'writer', type: 'belongsTo', target: 'authors', through: 'x' }],
      ];
      for (const [what, field] of bad) {
        const reply = await api.post('/api/collections/posts/fields:create', field);
        expect(reply.status, `${what}: ${reply.text}`).toBe(400);
        expect(reply.body.errors[0].code, what).toBe('SCHEMA_INVALID');
      }
      expect((await api.post('/api/collections/posts/fields:create', { name: 'author', type: 'belongsTo', target: 'authors' })).body.errors[0].code).toBe('FIELD_EXISTS');
    });

    it('protects collections others point at, and drops relations with their columns or through table', async () => {
      const api = ctx.api;
      const inUse = await api.del('/api/collections/authors');
      expect(inUse.status).toBe(409);
      expect(inUse.body.errors[0]).toMatchObject({ code: 'COLLECTION_IN_USE', details: { usedBy: ['posts.author'] } });

      expect((await api.del('/api/collections/posts/fields/tags')).status).toBe(200);
      expect((await api.get('/api/collections/posts_tags')).body.errors[0].code).toBe('COLLECTION_NOT_FOUND');
      expect((await api.del('/api/collections/posts/fields/comments')).status).toBe(200);
      // comments.post still uses comments.postId
      expect(names(await api.get('/api/collections/comments/fields:list'))).toContain('postId');
      expect((await api.del('/api/collections/comments/fields/post')).status).toBe(200);
      expect(names(await api.get('/api/collections/comments/fields:list'))).not.toContain('postId');
      expect((await api.post('/api/comments:create', { body: 'kept after a rebuild' })).status).toBe(201);

      const cascade = await api.del('/api/collections/authors?cascade=true');
      expect(cascade.status, cascade.text).toBe(200);
      expect(names(await api.get('/api/collections/posts/fields:list'))).toEqual(['id', 'createdAt', 'updatedAt', 'title']);
      expect((await api.get('/api/collections/profiles')).status).toBe(200);
      expect(names(await api.get('/api/collections/profiles/fields:list'))).not.toContain('authorId');
      expect((await api.get('/api/posts:list')).body.data[0]).toMatchObject({ title: 'p' });
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`relation edge cases on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    it('answers 409 REFERENCE_VIOLATION when deleting a row a RESTRICT relation points at', async () => {
      await ctx.api.collection({ name: 'customers', fields: [{ name: 'name', type: 'string' }] });
      await ctx.api.collection({ name: 'invoices', fields: [{ name: 'customer', type: 'belongsTo', onDelete: 'RESTRICT' }] });
      const customer = (await ctx.api.post('/api/customers:create', { name: 'c' })).body.data.id;
      await ctx.api.post('/api/invoices:create', { customer });
      const reply = await ctx.api.del(`/api/customers/${customer}`);
      expect(reply.status, reply.text).toBe(409);
      expect(reply.body.errors[0].code).toBe('REFERENCE_VIOLATION');
      expect((await ctx.api.get(`/api/customers/${customer}`)).status).toBe(200);
    });

    it('gives a shared key column one ON DELETE rule', async () => {
      await ctx.api.collection({ name: 'books', fields: [{ name: 'title', type: 'string' }] });
      await ctx.api.collection({ name: 'chapters', fields: [{ name: 'title', type: 'string' }] });
      await ctx.api.post('/api/collections/books/fields:create', { name: 'chapters', type: 'hasMany', onDelete: 'CASCADE' });
      const clash = await ctx.api.post('/api/collections/chapters/fields:create', { name: 'book', type: 'belongsTo', onDelete: 'SET NULL' });
      expect(clash.body.errors[0].code).toBe('SCHEMA_INVALID');
      const adopted = await ctx.api.post('/api/collections/chapters/fields:create', { name: 'book', type: 'belongsTo' });
      expect(adopted.body.data.onDelete).toBe('CASCADE');
    });

    it('maps REST methods on a to-one association path to get, update and destroy', async () => {
      await ctx.api.collection({ name: 'writers', fields: [{ name: 'name', type: 'string' }] });
      await ctx.api.collection({ name: 'essays', fields: [{ name: 'writer', type: 'belongsTo' }] });
      const essay = (await ctx.api.post('/api/essays:create', { writer: { name: 'w' } })).body.data.id;
      expect((await ctx.api.put(`/api/essays/${essay}/writer`, { name: 'renamed' })).body.data.name).toBe('renamed');
      expect((await ctx.api.get(`/api/essays/${essay}/writer`)).body.data.name).toBe('renamed');
      expect((await ctx.api.del(`/api/essays/${essay}/writer`)).body).toEqual({ data: 1 });
      expect((await ctx.api.get(`/api/essays/${essay}/writer`)).body.errors[0].code).toBe('RECORD_NOT_FOUND');
    });

    it('limits association depth in fields as in appends', async () => {
      await ctx.api.collection({ name: 'people', fields: [{ name: 'name', type: 'string' }] });
      await ctx.api.post('/api/collections/people/fields:create', { name: 'manager', type: 'belongsTo', target: 'people' });
      const deep = await ctx.api.get('/api/people:list?fields=manager.manager.manager.manager.manager.name');
      expect(deep.body.errors[0].code).toBe('APPENDS_UNKNOWN');
      expect((await ctx.api.get('/api/people:list?fields=manager.manager.name')).status).toBe(200);
    });
  });
}
