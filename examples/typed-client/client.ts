import createClient from 'openapi-fetch';
import type { components, paths } from './corral.js';

type Post = components['schemas']['posts'];

const baseUrl = process.env.CORRAL_URL ?? 'http://127.0.0.1:13000';
const account = process.env.CORRAL_ACCOUNT ?? 'root@localhost';
const password = process.env.CORRAL_PASSWORD ?? '';

// sign in once (auth:signIn is public), then send the token with every request
const signedIn = await createClient<paths>({ baseUrl }).POST('/api/auth:signIn', { body: { account, password } });
if (signedIn.error) throw new Error(signedIn.error.errors[0]!.message);
const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${signedIn.data.data.token}` } });

// create: the body is checked against posts.create (required fields, value types)
const created = await client.POST('/api/posts:create', {
  body: { title: 'Hello', author: { name: 'Ada' } }, // nested: creates the author and links it
  params: { query: { appends: ['author'] } },
});
if (created.error) throw new Error(created.error.errors[0]!.message); // the error body, typed
const post = created.data.data as Post; // one object (a bulk create answers an array)

// list: filter is a JSON-encoded query parameter (the filter language of docs/querying.md)
const listed = await client.GET('/api/posts:list', {
  params: { query: { filter: JSON.stringify({ title: { $includes: 'hell' } }), sort: ['-createdAt'], pageSize: 10 } },
});
if (listed.error) throw new Error(listed.error.errors[0]!.message);
const titles = listed.data.data.map((row) => row.title); // row.titel does not compile

// one row by key; a missing one is the typed error body
const missing = await client.GET('/api/posts:get', { params: { query: { filterByTk: 999_999 } } });
const code = missing.error?.errors[0]?.code; // 'RECORD_NOT_FOUND'

console.log(JSON.stringify({ id: post.id, author: post.author?.name, titles, code }));
