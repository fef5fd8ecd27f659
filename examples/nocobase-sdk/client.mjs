import { APIClient } from './load-sdk.mjs';

const baseURL = `${process.env.CORRAL_URL ?? 'http://127.0.0.1:13000'}/api`;
const account = process.env.CORRAL_ACCOUNT ?? 'root@localhost';
const password = process.env.CORRAL_PASSWORD ?? '';

const api = new APIClient({ baseURL });
// Signs in (POST auth:signIn) and keeps the token: every later request sends it.
await api.auth.signIn({ account, password }, 'basic');

await api.resource('posts').create({ values: { title: 'Hello, SDK' } });
const { data } = await api.resource('posts').list({ filter: { title: { $eq: 'Hello, SDK' } }, sort: ['-createdAt'] });
const info = await api.resource('app').getInfo(); // POSTed by the SDK: accepted
const fields = await api.resource('collections.fields', 'posts').list({ filter: { type: 'string' }, fields: ['name'] });

console.log(JSON.stringify({
  titles: data.data.map((post) => post.title),
  count: data.meta.count,
  version: info.data.data.version,
  stringFields: fields.data.data.map((field) => field.name),
}));
await api.auth.signOut();
