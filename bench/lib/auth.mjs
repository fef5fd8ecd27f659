// Signing in for the bench: every Corral the bench starts gets the same root credentials and
// the same token secret, so one sign-in gives a token that every Corral (each database's root
// user has id 1) and the baseline (which checks the signature with the same secret) accept.
import { request } from './proc.mjs';

export const BENCH_ROOT = { email: 'bench@corral.local', password: 'bench-root-password' };
export const BENCH_SECRET = 'corral-bench-token-secret-not-for-production-use';

/** Environment of every Corral the bench starts. */
export const CORRAL_AUTH_ENV = { CORRAL_ROOT_EMAIL: BENCH_ROOT.email, CORRAL_ROOT_PASSWORD: BENCH_ROOT.password, CORRAL_AUTH_SECRET: BENCH_SECRET };

let headers = {};

/** The headers every bench request sends (empty until `signIn` ran). */
export function authHeaders() {
  return headers;
}

/** Signs in to a Corral once; later calls keep the first token. */
export async function signIn(baseUrl) {
  if (headers.authorization !== undefined) return headers;
  const reply = await request(baseUrl, 'POST', '/api/auth:signIn', { account: BENCH_ROOT.email, password: BENCH_ROOT.password });
  if (reply.status !== 200) throw new Error(`sign-in answered ${reply.status}: ${reply.text.slice(0, 300)}`);
  headers = { authorization: `Bearer ${reply.body.data.token}` };
  return headers;
}

/** The scoped role of the `as: 'scoped'` scenarios: posts only, through a row filter matching every seeded post. */
const SCOPED_ROLE = { name: 'benchScoped', strategy: { actions: [] }, resources: [{ name: 'posts', actions: [{ name: 'view', filter: { id: { $gt: 0 } } }] }] };
const SCOPED_USER = { email: 'scoped@corral.local', password: 'bench-scoped-password', roles: [SCOPED_ROLE.name] };
let scopedHeaders;

/** Creates the scoped role and user (as root) in a freshly seeded database, and signs it in once. */
export async function setUpScopedUser(baseUrl) {
  for (const [path, body] of [['/api/roles:create', SCOPED_ROLE], ['/api/users:create', SCOPED_USER]]) {
    const reply = await request(baseUrl, 'POST', path, body);
    if (reply.status !== 201) throw new Error(`${path} answered ${reply.status}: ${reply.text.slice(0, 300)}`);
  }
  if (scopedHeaders !== undefined) return;
  const reply = await request(baseUrl, 'POST', '/api/auth:signIn', { account: SCOPED_USER.email, password: SCOPED_USER.password });
  if (reply.status !== 200) throw new Error(`scoped sign-in answered ${reply.status}: ${reply.text.slice(0, 300)}`);
  scopedHeaders = { authorization: `Bearer ${reply.body.data.token}` };
}

/** The headers of a scenario: the scoped user's for `as: 'scoped'`, else root's. */
export function headersFor(scenario) {
  return scenario.as === 'scoped' ? scopedHeaders : headers;
}
