/**
 * Drives generated requests at a live app and checks each answer. A fixed number of seeded
 * cases (FUZZ_RUNS per dialect, never "as many as fit in N seconds", so a loaded machine cannot
 * shrink the coverage); FUZZ_SEED reproduces a run (the seed is printed on failure).
 */
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { TEST_ROOT, type Reply, type TestApi } from '../../support/test-app.js';
import { envelopeProblem } from './envelope.js';
import type { FuzzRequest } from './request-arbitraries.js';
import { REQUEST_ID_PATTERN, type Expectation, type HostileCase } from './hostile-arbitraries.js';
import { seedRows, snapshot } from './fuzz-schema.js';

export const DEFAULT_FUZZ_SEED = 8_2026;
export const DEFAULT_FUZZ_RUNS = 200;
/** Refill the seed rows when the fuzzer has deleted most of `people`. */
const MIN_PEOPLE = 2;

export const FUZZ_SEED = process.env.FUZZ_SEED === undefined ? DEFAULT_FUZZ_SEED : Number(process.env.FUZZ_SEED);
/** Runs of each hostile property (each case is narrow, so fewer suffice). */
export const HOSTILE_RUNS = process.env.FUZZ_RUNS === undefined ? 25 : Number(process.env.FUZZ_RUNS);
export const FUZZ_RUNS = process.env.FUZZ_RUNS === undefined ? DEFAULT_FUZZ_RUNS : Number(process.env.FUZZ_RUNS);

export const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Root's token per app: the fuzzer acts as root, so answers are about the request, not a 401. */
const tokens = new WeakMap<FastifyInstance, Promise<string>>();
function tokenFor(app: FastifyInstance): Promise<string> {
  let token = tokens.get(app);
  if (token === undefined) {
    token = app
      .inject({ method: 'POST', url: '/api/auth:signIn', payload: { account: TEST_ROOT.email, password: TEST_ROOT.password } })
      .then((response) => {
        if (response.statusCode !== 200) throw new Error(`fuzz sign-in failed: ${response.statusCode} ${response.body}`);
        return (JSON.parse(response.body) as { data: { token: string } }).data.token;
      });
    tokens.set(app, token);
  }
  return token;
}

/** Sends one generated request as generated (no content type added), with root's token unless it names its own. */
export async function send(app: FastifyInstance, request: FuzzRequest): Promise<Reply> {
  const ownAuthorization = Object.keys(request.headers).some((name) => name.toLowerCase() === 'authorization');
  const response = await app.inject({
    method: request.method as 'GET',
    url: `/api/${request.path}${request.query === '' ? '' : `?${request.query}`}`,
    headers: ownAuthorization ? request.headers : { authorization: `Bearer ${await tokenFor(app)}`, ...request.headers },
    ...(request.body === undefined ? {} : { payload: request.body }),
  });
  let body: unknown;
  try {
    body = response.body === '' ? undefined : JSON.parse(response.body);
  } catch {
    body = undefined;
  }
  return { status: response.statusCode, headers: response.headers, body, text: response.body };
}

/** A request that would drop or reshape the seed schema itself: skipped, so later runs keep a target. */
export function changesSeedSchema(request: FuzzRequest): boolean {
  if (!request.path.startsWith('collections')) return false;
  return request.method === 'DELETE' || request.method === 'PUT' || request.method === 'PATCH' || /:(destroy|update|set|remove|toggle)\b/.test(request.path);
}

export function describeRequest(request: FuzzRequest): string {
  const text = typeof request.body === 'string' || request.body === undefined ? request.body : JSON.stringify(request.body.toString('latin1'));
  const body = text === undefined ? '' : ` body=${text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text}`;
  return `${request.method} /api/${request.path}${request.query === '' ? '' : `?${request.query}`} headers=${JSON.stringify(Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, v.length > 80 ? `${v.slice(0, 80)}… (${v.length} chars)` : v])))}${body}`;
}

/**
 * Runs the property: every answer is an envelope without 5xx, and a write answered 4xx leaves
 * the schema and every row as they were.
 */
export async function fuzzApp(label: string, app: FastifyInstance, api: TestApi, arbitrary: fc.Arbitrary<FuzzRequest>): Promise<void> {
  let runs = 0;
  const statuses = new Map<string, number>();
  const property = fc.asyncProperty(arbitrary, async (request) => {
    fc.pre(!changesSeedSchema(request));
    runs += 1;
    if (runs % 25 === 0) {
      const people = await api.get('/api/people:count');
      if (people.status === 200 && Number(people.body.data) < MIN_PEOPLE) await seedRows(api);
    }
    const writes = WRITE_METHODS.has(request.method);
    const before = writes ? await snapshot(api) : undefined;
    const reply = await send(app, request);
    const outcome = outcomeOf(request.method, reply);
    statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1);
    const problem = envelopeProblem(request.method, reply);
    if (problem !== undefined) throw new Error(`${problem}\n  request: ${describeRequest(request)}\n  answer: ${reply.status} ${reply.text.slice(0, 500)}`);
    if (before !== undefined && reply.status >= 400) {
      const after = await snapshot(api);
      if (after !== before) throw new Error(`stored data changed on a ${reply.status}\n  request: ${describeRequest(request)}\n  answer: ${reply.text.slice(0, 500)}`);
    }
  });
  const started = performance.now();
  const details = await fc.check(property, {
    seed: FUZZ_SEED,
    numRuns: FUZZ_RUNS,
    maxSkipsPerRun: 100,
  });
  console.log(`[fuzz ${label}] ${details.numRuns} runs (${details.numSkips} skipped) in ${(performance.now() - started).toFixed(0)} ms, seed ${FUZZ_SEED}; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a.localeCompare(b))))}`);
  if (details.failed) {
    throw new Error(`fuzz ${label} failed; reproduce with FUZZ_SEED=${FUZZ_SEED} FUZZ_RUNS=${FUZZ_RUNS}\n${fc.defaultReportMessage(details) ?? ''}`);
  }
}

/**
 * The histogram label of an answer: the status, and for an error its first code. A HEAD
 * answer has no body (HTTP forbids one), so its errors are labelled `HEAD` rather than by a
 * code it cannot carry; every other error must have a code (envelopeProblem checks that).
 */
export function outcomeOf(method: string, reply: Reply): string {
  if (reply.status < 400) return String(reply.status);
  if (method === 'HEAD') return `${reply.status} HEAD`;
  return `${reply.status} ${String(reply.body?.errors?.[0]?.code)}`;
}

/** Why a reply breaks a hostile case's promise, or undefined. */
function expectationProblem(expectation: Expectation, reply: Reply): string | undefined {
  if (expectation.kind === 'no5xx') return undefined;
  const code = String(reply.body?.errors?.[0]?.code);
  if (reply.status !== expectation.status || !expectation.codes.includes(code)) return `expected ${expectation.status} ${expectation.codes.join(' or ')}, got ${reply.status} ${code}`;
  return undefined;
}

/** Why the answer's x-request-id breaks section 12 (kept only when plain and short), or undefined. */
export function requestIdProblem(reply: Reply): string | undefined {
  const id = reply.headers['x-request-id'];
  if (id === undefined) return undefined;
  return typeof id === 'string' && REQUEST_ID_PATTERN.test(id) ? undefined : `x-request-id echoed as ${JSON.stringify(String(id).slice(0, 80))}`;
}

/**
 * Runs hostile cases: each answer keeps the envelope without 5xx and its case's promise, a
 * refused write changes nothing, and the follow-up requests still answer without 5xx.
 */
export async function fuzzCases(label: string, app: FastifyInstance, api: TestApi, arbitrary: fc.Arbitrary<HostileCase>, runs = HOSTILE_RUNS): Promise<void> {
  const property = fc.asyncProperty(arbitrary, async ({ request, expect: expectation, followUps }) => {
    const writes = WRITE_METHODS.has(request.method);
    const before = writes ? await snapshot(api) : undefined;
    const reply = await send(app, request);
    const problem = envelopeProblem(request.method, reply) ?? requestIdProblem(reply) ?? expectationProblem(expectation, reply);
    if (problem !== undefined) throw new Error(`${problem}\n  request: ${describeRequest(request)}\n  answer: ${reply.status} ${reply.text.slice(0, 500)}`);
    if (before !== undefined && reply.status >= 400) {
      const after = await snapshot(api);
      if (after !== before) throw new Error(`stored data changed on a ${reply.status}\n  request: ${describeRequest(request)}`);
    }
    for (const followUp of followUps) {
      const next = await send(app, followUp);
      const broken = envelopeProblem(followUp.method, next);
      if (broken !== undefined) throw new Error(`after ${describeRequest(request)} (${reply.status}): ${broken}\n  follow-up: ${describeRequest(followUp)}\n  answer: ${next.status} ${next.text.slice(0, 500)}`);
    }
  });
  // No shrinking: each case is narrow already, and a broken collection would make it slow.
  const details = await fc.check(property, {
    seed: FUZZ_SEED,
    numRuns: runs,
    endOnFailure: true,
  });
  if (details.failed) {
    const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(`fuzz ${label} failed; reproduce with FUZZ_SEED=${FUZZ_SEED}\n${error}`);
  }
}
