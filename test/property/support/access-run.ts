import fc from 'fast-check';
import type { BuiltApp } from '../../../src/app.js';
import type { TestApi } from '../../support/test-app.js';
import { defineAccessSchema, resetRows, type Sender } from './access-schema.js';
import { answerLeaks, type Leak } from './check-answer.js';
import { eventLeaks, lastEventId } from './check-events.js';
import { diffWorlds, writeLeaks, writtenKeys } from './check-writes.js';
import { ACTIONS, grantArb, roleBody, type Grant } from './grant.js';
import { readArb } from './read-arbitraries.js';
import { resolve, type RequestTemplate, type Resolved } from './request-template.js';
import { sameAsMissing } from './same-as-missing.js';
import { writeArb } from './write-arbitraries.js';
import { readWorld, type World } from './world.js';

/** ACCESS_SEED / ACCESS_RUNS / ACCESS_PATH / ACCESS_SURVEY (see the test's doc comment). */
const env = process.env;
export const ACCESS_SEED = env.ACCESS_SEED === undefined ? 23_2026 : Number(env.ACCESS_SEED);
/** Scenarios per dialect, all of them run (no time limit: a loaded machine must not shrink the coverage); each sends 6 to 14 requests. */
export const ACCESS_RUNS = env.ACCESS_RUNS === undefined ? 110 : Number(env.ACCESS_RUNS);
const ACCESS_PATH = env.ACCESS_PATH;
/** Survey: record every leak and go on (no failure, no shrinking); prints leak kinds with their runs. */
const SURVEY = env.ACCESS_SURVEY === '1';
const ACCOUNT = { account: 'prop@corral.test', password: 'prop-password-1' };
/** The role the user holds while the rows it creates (createdById) are seeded. */
const SEED_ROLE = 'prop_seed';

export interface Scenario {
  readonly grant: Grant;
  readonly requests: readonly RequestTemplate[];
}
/** ACCESS_OPEN=1: every role unrestricted, a check of the oracle itself (it must find nothing). */
const grants: fc.Arbitrary<Grant> = env.ACCESS_OPEN === '1' ? fc.constant({ strategy: [...ACTIONS], resources: {} }) : grantArb;
export const scenarioArb: fc.Arbitrary<Scenario> = fc.record({ grant: grants, requests: fc.array(fc.oneof(readArb(), writeArb()), { minLength: 6, maxLength: 14 }) });

interface Reply {
  status: number;
  body: any;
  text: string;
}

class Harness {
  roles = 0;
  lastEvent = 0;
  requests = 0;
  compared = 0;
  scenarios = 0;
  readonly statuses = new Map<string, number>();
  readonly survey = new Map<string, string[]>();
  token = '';
  /** The X-Role sent: `__union__` when the scenario's user holds two roles. */
  role: string | undefined;
  constructor(readonly built: BuiltApp, readonly root: TestApi, readonly userId: number) {}

  async signIn(): Promise<void> {
    const response = await this.built.app.inject({ method: 'POST', url: '/api/auth:signIn', payload: ACCOUNT });
    if (response.statusCode !== 200) throw new Error(`property user sign-in failed: ${response.statusCode} ${response.body}`);
    this.token = (JSON.parse(response.body) as { data: { token: string } }).data.token;
  }

  async send(method: string, resolved: Pick<Resolved, 'url' | 'body'>): Promise<Reply> {
    this.requests += 1;
    const hasBody = resolved.body !== undefined;
    let response: { statusCode: number; body: string };
    try {
      response = await this.built.app.inject({ method: method as 'GET', url: resolved.url, headers: { authorization: `Bearer ${this.token}`, ...(this.role === undefined ? {} : { 'x-role': this.role }), ...(hasBody ? { 'content-type': 'application/json' } : {}) }, ...(hasBody ? { payload: JSON.stringify(resolved.body) } : {}) });
    } catch (error) {
      // A stream cut off mid-answer: reported as a broken answer, not a crash of the run.
      return { status: 599, body: undefined, text: `no complete answer: ${error instanceof Error ? error.message : String(error)}` };
    }
    let body: unknown;
    try {
      body = response.body === '' ? undefined : JSON.parse(response.body);
    } catch {
      body = undefined;
    }
    return { status: response.statusCode, body, text: response.body };
  }
}

export async function setUpHarness(built: BuiltApp, root: TestApi): Promise<Harness> {
  await defineAccessSchema(root);
  const user = await root.post('/api/users:create', { email: ACCOUNT.account, password: ACCOUNT.password, roles: [] });
  if (user.status !== 201) throw new Error(`creating the property user failed: ${user.status} ${user.text}`);
  const seed = await root.post('/api/roles:create', { name: SEED_ROLE, strategy: { actions: [...ACTIONS] } });
  if (seed.status !== 201) throw new Error(`creating the seeding role failed: ${seed.status} ${seed.text}`);
  return new Harness(built, root, Number(user.body.data.id));
}

/** The harness's user as a client (for seeding its rows). */
const asUser = (h: Harness): Sender => ({ request: (method, url, body) => h.send(method, { url, body }) });

const READS = new Set(['read', 'count', 'query', 'changes']);
const describe = (template: RequestTemplate, resolved: Resolved, reply: Reply): string =>
  `${template.method} ${decodeURIComponent(resolved.url)}${resolved.body === undefined ? '' : ` body=${JSON.stringify(resolved.body)}`}\n    → ${reply.status} ${reply.text.slice(0, 400)}`;

/** Sends one request and returns what the oracle finds wrong, and root's rows after it. */
async function step(h: Harness, grant: Grant, template: RequestTemplate, world: World, after: number): Promise<{ leaks: string[]; world: World; sent: string }> {
  const resolved = resolve(template, { world, grant, userId: h.userId, after });
  const reply = await h.send(template.method, resolved);
  const outcome = `${template.family} ${reply.status}${reply.status >= 400 ? ` ${String(reply.body?.errors?.[0]?.code)}` : ''}`;
  h.statuses.set(outcome, (h.statuses.get(outcome) ?? 0) + 1);
  const now = READS.has(template.kind) ? world : await readWorld(h.root);
  const diff = diffWorlds(world, now);
  const leaks: Leak[] = [];
  if (reply.status >= 500) leaks.push({ kind: reply.status === 599 ? 'broken-stream' : 'server-error', detail: `status ${reply.status}` });
  const changed = diff.inserted.length + diff.deleted.length + diff.updated.length > 0;
  if (reply.status >= 400 && changed) leaks.push({ kind: 'atomic', detail: `a ${reply.status} answer changed stored rows` });
  leaks.push(...writeLeaks(grant, h.userId, world, now, diff));
  const answer = { grant, userId: h.userId, world: now, written: writtenKeys(diff) };
  if (reply.status < 300) {
    if (template.kind === 'changes') leaks.push(...(await eventLeaks(h.root, reply.body, after, grant, h.userId, now)));
    else leaks.push(...answerLeaks(template, reply.body, answer, resolved.sourceKey));
    const cursor = reply.body?.meta?.nextCursor;
    if (template.followCursor === true && typeof cursor === 'string') {
      const next = await h.send('GET', { url: resolved.url.replace(/([?&])cursor=[^&]*/, `$1cursor=${encodeURIComponent(cursor)}`) });
      if (next.status < 300) leaks.push(...answerLeaks(template, next.body, answer, undefined));
      else if (next.status >= 500) leaks.push({ kind: 'server-error', detail: `next cursor page: ${next.status}` });
    }
  }
  let world2 = now;
  // A 2xx item answer holds other keys that may equal a compared one; it is judged by the answer checks instead.
  const itemAnswer = reply.status < 400 && typeof reply.body?.data === 'object' && reply.body?.data !== null;
  if (!changed && !itemAnswer && resolved.compared.length > 0) {
    const missing = resolve(template, { world, grant, userId: h.userId, after, asMissing: true });
    const other = await h.send(template.method, missing);
    const difference = sameAsMissing(reply, other, resolved.compared);
    h.compared += 1;
    if (difference !== undefined) leaks.push({ kind: 'existence', detail: `${difference}\n    with missing keys: ${decodeURIComponent(missing.url)}${missing.body === undefined ? '' : ` body=${JSON.stringify(missing.body)}`}` });
    if (other.status < 400) world2 = await readWorld(h.root);
  }
  const sent = `${template.method} ${decodeURIComponent(resolved.url)}${resolved.body === undefined ? '' : ` ${JSON.stringify(resolved.body)}`} → ${reply.status}`;
  return { leaks: leaks.map((leak) => `[${leak.kind} @ ${template.family}] ${leak.detail}\n    request: ${describe(template, resolved, reply)}`), world: world2, sent };
}

/** A role body whose `named` filters are moved into `rolesResourcesScopes` rows, named by `scopeId`. */
async function namedScopes(root: TestApi, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const resources = [];
  for (const resource of body.resources as Array<{ name: string; actions: Array<Record<string, unknown>> }>) {
    const actions = [];
    for (const { named, filter, ...action } of resource.actions) {
      if (named !== true) {
        actions.push(filter === undefined ? action : { ...action, filter });
        continue;
      }
      const scope = await root.post('/api/rolesResourcesScopes:create', { name: `prop ${resource.name}`, resourceName: resource.name, scope: filter });
      if (scope.status !== 201) throw new Error(`rolesResourcesScopes:create refused the generated filter: ${scope.status} ${scope.text}`);
      actions.push({ ...action, scopeId: scope.body.data.id });
    }
    resources.push({ ...resource, actions });
  }
  return { ...body, resources };
}

async function runScenario(h: Harness, scenario: Scenario, run: number): Promise<string[]> {
  h.roles += 1;
  h.scenarios += 1;
  const role = `prop_${h.roles}`;
  const roles = scenario.grant.also === undefined ? [role] : [role, `${role}_b`];
  for (const [name, grant] of [[role, scenario.grant], [`${role}_b`, scenario.grant.also]] as const) {
    if (grant === undefined) continue;
    const created = await h.root.post('/api/roles:create', await namedScopes(h.root, roleBody(name, grant)));
    if (created.status !== 201) throw new Error(`roles:create refused the generated grant: ${created.status} ${created.text}\n${JSON.stringify(roleBody(name, grant))}`);
  }
  const give = async (names: string[]): Promise<void> => {
    const user = await h.root.post(`/api/users:update?filterByTk=${h.userId}`, { roles: names });
    if (user.status !== 200) throw new Error(`users:update failed: ${user.status} ${user.text}`);
  };
  // The user's own rows are created by the user (createdById), with a role that may do everything.
  await give([SEED_ROLE]);
  await h.signIn();
  h.role = undefined;
  await resetRows(h.root, h.userId, asUser(h));
  await give(roles);
  await h.signIn();
  h.role = scenario.grant.also === undefined ? undefined : '__union__';
  const after = await lastEventId(h.root, h.lastEvent);
  h.lastEvent = after;
  let world = await readWorld(h.root);
  const found: string[] = [];
  const sent: string[] = [];
  for (const template of scenario.requests) {
    const result = await step(h, scenario.grant, template, world, after);
    world = result.world;
    sent.push(result.sent);
    if (result.leaks.length > 0) {
      found.push(...result.leaks);
      if (!SURVEY) {
        // The requests before the failing one set up the rows it saw.
        if (sent.length > 1) found.push(`requests of the scenario before it:\n    ${sent.slice(0, -1).join('\n    ')}`);
        break;
      }
    }
  }
  if (SURVEY) for (const leak of found) {
    // One entry per leak kind and route family, two examples each.
    const kind = leak.slice(1, leak.indexOf(']'));
    const list = h.survey.get(kind) ?? [];
    if (list.length < 2) list.push(`ACCESS_PATH=${run}: ${leak}\n    grant: ${JSON.stringify(roleBody(role, scenario.grant).resources)} strategy ${JSON.stringify(scenario.grant.strategy)}${scenario.grant.also === undefined ? '' : ` and (__union__) ${JSON.stringify(roleBody('b', scenario.grant.also))}`}`);
    h.survey.set(kind, list);
  }
  return found;
}

export async function checkAccess(label: string, h: Harness): Promise<void> {
  let run = 0;
  const started = performance.now();
  const property = fc.asyncProperty(scenarioArb, async (scenario) => {
    const found = await runScenario(h, scenario, run);
    run += 1;
    if (!SURVEY && found.length > 0) throw new Error(`${found.length} leak(s):\n  ${found.join('\n  ')}\n  grant: ${JSON.stringify(roleBody('r', scenario.grant))}${scenario.grant.also === undefined ? '' : ` and (__union__) ${JSON.stringify(roleBody('b', scenario.grant.also))}`}`);
  });
  const details = await fc.check(property, {
    seed: ACCESS_SEED,
    numRuns: ACCESS_RUNS,
    ...(ACCESS_PATH === undefined ? {} : { path: ACCESS_PATH }),
    endOnFailure: SURVEY || ACCESS_PATH !== undefined || env.ACCESS_SHRINK === '0',
  });
  const ms = performance.now() - started;
  console.log(`[access ${label}] ${h.scenarios} scenarios (${details.numRuns} before any failure, the rest shrinking), ${h.requests} requests as the user (${h.compared} out-of-scope/missing comparisons) in ${(ms / 1000).toFixed(1)} s, seed ${ACCESS_SEED}; outcomes ${JSON.stringify(Object.fromEntries([...h.statuses].sort(([a], [b]) => a.localeCompare(b))))}`);
  if (SURVEY) console.log(`[access ${label}] survey, leak kinds found (ACCESS_SEED=${ACCESS_SEED}):\n${[...h.survey].sort(([a], [b]) => a.localeCompare(b)).map(([kind, list]) => `== ${kind}\n  ${list.join('\n  ')}`).join('\n')}`);
  if (details.failed) {
    throw new Error(`access property on ${label} failed; reproduce with ACCESS_SEED=${ACCESS_SEED} ACCESS_PATH=${details.counterexamplePath ?? '?'} (CORRAL_TEST_DIALECTS=${label})\n${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`);
  }
}
