// @ts-check
// Signing in for the bench: every Corral the bench starts gets the same root credentials and
// the same token secret, so the baseline (which checks the signature with the same secret)
// accepts any of their tokens. A sign-in token names the stored password hash, which each
// database salts anew, so the bench signs in again on every Corral it starts: the token of
// one database is refused by a Corral on another.
import { createHmac } from 'node:crypto';
import { request } from './proc.mjs';

export const BENCH_ROOT = { email: 'bench@corral.local', password: 'bench-root-password' };
export const BENCH_SECRET = 'corral-bench-token-secret-not-for-production-use';

/** Environment of every Corral the bench starts. */
export const CORRAL_AUTH_ENV = { CORRAL_ROOT_EMAIL: BENCH_ROOT.email, CORRAL_ROOT_PASSWORD: BENCH_ROOT.password, CORRAL_AUTH_SECRET: BENCH_SECRET };

/** @type {Record<string, string>} */
let headers = {};

/** The headers every bench request sends (empty until `signIn` ran). */
export function authHeaders() {
  return headers;
}

/**
 * A token the baseline accepts (HS256 with BENCH_SECRET) for user `sub`, valid for a day: for a
 * Corral from before authentication (`--corral` with an older commit), which has no sign-in and
 * ignores the header.
 * @param {number} sub
 */
export function benchToken(sub) {
  const part = (/** @type {unknown} */ value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: String(sub), exp: Math.floor(Date.now() / 1000) + 86_400 })}`;
  return `${unsigned}.${createHmac('sha256', BENCH_SECRET).update(unsigned).digest('base64url')}`;
}

/** Whether the Corral signed in to has authentication (false: a Corral from before it, see benchToken). */
let corralHasAuth = true;

/** Signs in to a Corral; its token replaces the one before (see the top of this file). @param {string} baseUrl */
export async function signIn(baseUrl) {
  const reply = await request(baseUrl, 'POST', '/api/auth:signIn', { account: BENCH_ROOT.email, password: BENCH_ROOT.password });
  if (reply.status === 404) {
    corralHasAuth = false;
    headers = { authorization: `Bearer ${benchToken(1)}` };
    return headers;
  }
  if (reply.status !== 200) throw new Error(`sign-in answered ${reply.status}: ${reply.text.slice(0, 300)}`);
  headers = { authorization: `Bearer ${reply.body.data.token}` };
  return headers;
}

/**
 * The scoped users of the `as: 'owner'` and `as: 'scopedAll'` scenarios, created right after
 * the seed (root is user 1, so they are users 2 and 3; setUpScopedUser checks it):
 * - owner: a typical owner/tenant scope, `{"ownerId": "{{$user.id}}"}` on posts (the seeder
 *   gives every tenth post `ownerId` = OWNER_USER_ID, so 1,000 of 10,000);
 * - scopedAll: the worst case for the count, a row filter `{"id": {"$gt": 0}}` that every
 *   post matches (SQLite counts rows under any WHERE by visiting them).
 * The baseline knows them by id from the token's `sub` and serves the same WHERE.
 */
export const OWNER_USER_ID = 2;
export const SCOPED_ALL_USER_ID = 3;
export const SCOPED_USERS = [
  {
    as: 'owner',
    id: OWNER_USER_ID,
    role: { name: 'benchOwner', strategy: { actions: [] }, resources: [{ name: 'posts', actions: [{ name: 'view', filter: { ownerId: '{{$user.id}}' } }] }] },
    user: { email: 'owner@corral.local', password: 'bench-owner-password', roles: ['benchOwner'] },
  },
  {
    as: 'scopedAll',
    id: SCOPED_ALL_USER_ID,
    role: { name: 'benchScoped', strategy: { actions: [] }, resources: [{ name: 'posts', actions: [{ name: 'view', filter: { id: { $gt: 0 } } }] }] },
    user: { email: 'scoped@corral.local', password: 'bench-scoped-password', roles: ['benchScoped'] },
  },
];
/** @type {Map<string, Record<string, string>>} */
const scopedHeaders = new Map();

/** Creates the scoped roles and users (as root) in a freshly seeded database, and signs each in once. @param {string} baseUrl */
export async function setUpScopedUser(baseUrl) {
  // A Corral without authentication has no roles: its scoped scenarios fail their check.
  if (!corralHasAuth) return;
  for (const { as, id, role, user } of SCOPED_USERS) {
    if ((await request(baseUrl, 'POST', '/api/roles:create', role)).status !== 201) throw new Error(`roles:create ${role.name} failed`);
    const created = await request(baseUrl, 'POST', '/api/users:create', user);
    if (created.status !== 201) throw new Error(`users:create answered ${created.status}: ${created.text.slice(0, 300)}`);
    if (created.body.data.id !== id) throw new Error(`the ${as} user got id ${created.body.data.id}, the seed and the baseline expect ${id}`);
    const reply = await request(baseUrl, 'POST', '/api/auth:signIn', { account: user.email, password: user.password });
    if (reply.status !== 200) throw new Error(`${as} sign-in answered ${reply.status}: ${reply.text.slice(0, 300)}`);
    scopedHeaders.set(as, { authorization: `Bearer ${reply.body.data.token}` });
  }
}

/**
 * The headers of a scenario: a scoped user's for `as: 'owner'` or `as: 'scopedAll'`, else root's.
 * @param {{ as?: string }} scenario
 * @returns {Record<string, string> | undefined}
 */
export function headersFor(scenario) {
  return scenario.as === undefined ? headers : scopedHeaders.get(scenario.as);
}
