import type { TestApi } from './test-app.js';

/** The schema the NocoBase action tests share: posts, comments, profiles, tags, and posts_tags with a field of its own. */
export async function defineNocoBaseBlog(api: TestApi): Promise<void> {
  await api.collection({ name: 'posts_tags', fields: [{ name: 'tagged_at', type: 'string' }] });
  await api.collection({ name: 'tags', fields: [{ name: 'name', type: 'string' }] });
  await api.collection({
    name: 'posts',
    fields: [
      { name: 'title', type: 'string' },
      { name: 'status', type: 'string', defaultValue: 'draft' },
      { name: 'tags', type: 'belongsToMany', target: 'tags', through: 'posts_tags' },
    ],
  });
  await api.collection({ name: 'comments', fields: [{ name: 'content', type: 'string' }, { name: 'post', type: 'belongsTo', target: 'posts' }] });
  await api.collection({ name: 'profiles', fields: [{ name: 'post_profile', type: 'string' }, { name: 'post', type: 'belongsTo', target: 'posts' }] });
  for (const field of [
    { name: 'comments', type: 'hasMany', target: 'comments' },
    { name: 'profile', type: 'hasOne', target: 'profiles' },
  ]) {
    const reply = await api.post('/api/collections/posts/fields:create', field);
    if (reply.status !== 201) throw new Error(`fields:create failed: ${reply.status} ${reply.text}`);
  }
  const inverse = await api.post('/api/collections/tags/fields:create', { name: 'posts', type: 'belongsToMany', target: 'posts', through: 'posts_tags' });
  if (inverse.status !== 201) throw new Error(`fields:create failed: ${inverse.status} ${inverse.text}`);
}
