import { everyFieldTypeFields } from '../../fixtures/every-field-type.js';
import type { TestApi } from '../../support/test-app.js';

/**
 * A small schema with every scalar field type and every relation type, for the fuzz suite.
 * `people` carries all scalar types and the four relations; the others are their targets.
 */
export const SCALAR_FIELDS = [
  ...everyFieldTypeFields({
    string: { name: 'title', length: 40 },
    text: { name: 'body' },
    integer: { name: 'amount', min: -1000, max: 1000 },
    bigInt: { name: 'big' },
    float: { name: 'ratio' },
    double: { name: 'score' },
    decimal: { name: 'price', precision: 8, scale: 2 },
    boolean: { name: 'active' },
    date: { name: 'seenAt' },
    dateOnly: { name: 'day' },
    time: { name: 'clock' },
    json: { name: 'meta' },
    array: { name: 'list' },
    uuid: { name: 'ref' },
    nanoid: { name: 'code' },
    password: { name: 'secret' },
    sort: { name: 'rank' },
  }),
  { name: 'status', type: 'string', enum: ['draft', 'published'] },
  { name: 'slug', type: 'string', unique: true, pattern: '^[a-z0-9-]*$' },
];

export const RELATIONS = [
  { name: 'team', type: 'belongsTo', target: 'teams' },
  { name: 'profile', type: 'hasOne', target: 'profiles' },
  { name: 'notes', type: 'hasMany', target: 'notes' },
  { name: 'tags', type: 'belongsToMany', target: 'tags' },
] as const;

/** Collections the fuzzer reads and writes (the through collection included). */
export const FUZZ_COLLECTIONS = ['teams', 'tags', 'notes', 'profiles', 'people', 'people_tags'] as const;

export async function defineFuzzSchema(api: TestApi): Promise<void> {
  await api.collection({ name: 'teams', fields: [{ name: 'name', type: 'string', unique: true }] });
  await api.collection({ name: 'tags', idType: 'uuid', fields: [{ name: 'label', type: 'string' }] });
  await api.collection({ name: 'notes', fields: [{ name: 'text', type: 'text' }] });
  await api.collection({ name: 'profiles', idType: 'nanoid', fields: [{ name: 'bio', type: 'text' }] });
  await api.collection({ name: 'people', fields: [...SCALAR_FIELDS, ...RELATIONS] });
}

async function create(api: TestApi, collection: string, body: unknown): Promise<any> {
  const reply = await api.post(`/api/${collection}:create`, body);
  if (reply.status !== 201) throw new Error(`seeding ${collection} failed: ${reply.status} ${reply.text}`);
  return reply.body.data;
}

/** Rows in every collection; called again whenever the fuzzer has emptied `people`. */
export async function seedRows(api: TestApi): Promise<void> {
  const teams = await create(api, 'teams', [{ name: `red-${Date.now()}` }, { name: `blue-${Date.now()}` }]);
  const tags = await create(api, 'tags', [{ label: 'a' }, { label: 'b' }, { label: 'c' }]);
  for (let i = 0; i < 4; i += 1) {
    await create(api, 'people', {
      title: `person ${i}`,
      body: 'x'.repeat(i * 10),
      amount: i * 7,
      big: '9007199254740993',
      ratio: i / 3,
      score: -i,
      price: `${i}.25`,
      active: i % 2 === 0,
      seenAt: '2026-01-02T03:04:05.000Z',
      day: '2026-02-03',
      clock: '12:34:56',
      meta: { n: i, nested: { list: [1, 'two', null] } },
      list: [i, 'x'],
      ref: '00000000-0000-4000-8000-00000000000' + i,
      code: `code${i}`,
      secret: 'hunter2',
      status: i % 2 === 0 ? 'draft' : 'published',
      team: teams[i % teams.length].id,
      tags: tags.slice(0, i).map((tag: { id: string }) => tag.id),
      notes: [{ text: `note ${i}` }],
      profile: { bio: `bio ${i}` },
    });
  }
}

/** The schema API reply and every row of every fuzz collection, in a stable order. */
export async function snapshot(api: TestApi): Promise<string> {
  const parts: unknown[] = [];
  const schema = await api.get('/api/collections:list?pageSize=1000&sort=name');
  parts.push(schema.status, schema.body);
  const lists = await Promise.all(FUZZ_COLLECTIONS.map((collection) => api.get(`/api/${collection}:list?pageSize=1000&paginate=false`)));
  FUZZ_COLLECTIONS.forEach((collection, i) => {
    const reply = lists[i]!;
    const rows: unknown[] = Array.isArray(reply.body?.data) ? reply.body.data : [];
    parts.push(collection, reply.status, rows.map((row) => JSON.stringify(row)).sort());
  });
  return JSON.stringify(parts);
}
