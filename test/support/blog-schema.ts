import type { TestApi } from './test-app.js';

/**
 * The schema most association tests share: authors, tags, comments (belongsTo author) and
 * posts (belongsTo author, hasMany comments, belongsToMany tags through posts_tags).
 */
export async function defineBlog(api: TestApi): Promise<void> {
  await api.collection({ name: 'authors', fields: [{ name: 'name', type: 'string' }] });
  await api.collection({ name: 'tags', fields: [{ name: 'label', type: 'string' }] });
  await api.collection({ name: 'comments', fields: [{ name: 'body', type: 'string' }, { name: 'author', type: 'belongsTo' }] });
  await api.collection({
    name: 'posts',
    fields: [{ name: 'title', type: 'string' }, { name: 'author', type: 'belongsTo' }, { name: 'comments', type: 'hasMany' }, { name: 'tags', type: 'belongsToMany' }],
  });
}
