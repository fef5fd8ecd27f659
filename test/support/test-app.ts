import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { buildApp, type BuildOptions, type BuiltApp } from '../../src/app.js';
import { DEFAULT_CONFIG, type Config } from '../../src/config/config.js';
import type { Dialect } from '../../src/schema/types.js';
import { checkContract } from './contract-check.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/** The prefix every test server uses (testConfig). */
const API_PREFIX = '/api';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: any;
  text: string;
}

/** A thin client over Fastify's inject: the real HTTP surface without a socket. */
export interface TestApi {
  request(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  get(url: string): Promise<Reply>;
  post(url: string, body?: unknown): Promise<Reply>;
  put(url: string, body?: unknown): Promise<Reply>;
  del(url: string): Promise<Reply>;
  /** Creates a collection and fails loudly if the schema API refuses. */
  collection(definition: Record<string, unknown>): Promise<void>;
  /** The `authorization` header this client sends (signing in first), for requests made outside `inject` (a real socket). */
  authHeaders(): Promise<Record<string, string>>;
}

/** The root user every test app starts with; `apiFor` signs in as it. */
export const TEST_ROOT = { email: 'root@corral.test', password: 'root-password-for-tests' } as const;

export function testConfig(database: TestDatabase, overrides: Partial<Config> = {}): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    database: database.config,
    logLevel: 'silent',
    bodyLimit: DEFAULT_CONFIG.bodyLimit,
    apiPrefix: '/api',
    shutdownTimeoutMs: 5000,
    schemaPollMs: 200,
    dbConnectTimeoutMs: DEFAULT_CONFIG.dbConnectTimeoutMs,
    dbStatementTimeoutMs: DEFAULT_CONFIG.dbStatementTimeoutMs,
    corsOrigins: [],
    allowedHosts: [],
    trustedProxies: [],
    workers: 1,
    auth: { enabled: true, rootEmail: TEST_ROOT.email, rootPassword: TEST_ROOT.password, tokenTtlSeconds: 3600 },
    // Each app its own attachment storage: the orphan sweep of one never sees another's files.
    storage: { kind: 'local', dir: mkdtempSync(join(tmpdir(), 'corral-files-')) },
    ...overrides,
  };
}

/**
 * `credentials`: who the client signs in as on its first request (root by default; `null`
 * for an anonymous client). A request that sets its own `authorization` header (even '')
 * sends that instead.
 */
export function apiFor(built: BuiltApp, credentials: { account: string; password: string } | null = { account: TEST_ROOT.email, password: TEST_ROOT.password }): TestApi {
  let token: Promise<string> | undefined;
  const send = (method: string, url: string, body: unknown, headers: Record<string, string>) => {
    const hasBody = body !== undefined;
    return built.app.inject({
      method: method as 'GET',
      url,
      ...(hasBody ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...headers },
    });
  };
  const signIn = async (): Promise<string> => {
    const reply = await send('POST', '/api/auth:signIn', credentials, {});
    if (reply.statusCode !== 200) throw new Error(`test sign-in failed: ${reply.statusCode} ${reply.body}`);
    return (JSON.parse(reply.body) as { data: { token: string } }).data.token;
  };
  const request = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
    const signed = credentials !== null && built.auth !== undefined && !Object.hasOwn(headers, 'authorization');
    if (signed) token ??= signIn();
    const response = await send(method, url, body, signed ? { authorization: `Bearer ${await token}`, ...headers } : headers);
    let parsed: unknown;
    try {
      parsed = response.body === '' ? undefined : JSON.parse(response.body);
    } catch {
      parsed = undefined;
    }
    const contentType = response.headers['content-type'];
    checkContract(method, url, response.statusCode, typeof contentType === 'string' ? contentType : undefined, parsed, built.schema.snapshot, API_PREFIX);
    return { status: response.statusCode, headers: response.headers, body: parsed, text: response.body };
  };
  return {
    request,
    get: (url) => request('GET', url),
    post: (url, body) => request('POST', url, body),
    put: (url, body) => request('PUT', url, body),
    del: (url) => request('DELETE', url),
    authHeaders: async (): Promise<Record<string, string>> => {
      if (credentials === null || built.auth === undefined) return {};
      token ??= signIn();
      return { authorization: `Bearer ${await token}` };
    },
    collection: async (definition) => {
      const reply = await request('POST', '/api/collections:create', definition);
      if (reply.status !== 201) throw new Error(`collections:create failed: ${reply.status} ${reply.text}`);
    },
  };
}

export interface DialectApp {
  readonly api: TestApi;
  readonly built: BuiltApp;
  readonly database: TestDatabase;
}

/**
 * Registers beforeAll/afterAll that give a describe block its own database and app on one
 * dialect. Read the fields inside tests (they are set once beforeAll has run).
 */
export function useDialectApp(dialect: Dialect, overrides: Partial<Config> = {}, options: BuildOptions = {}): DialectApp {
  const state = {} as { api: TestApi; built: BuiltApp; database: TestDatabase };
  let storageDir: string | undefined;
  beforeAll(async () => {
    state.database = await createTestDatabase(dialect);
    const config = testConfig(state.database, overrides);
    storageDir = config.storage?.dir;
    state.built = await buildApp(config, options);
    state.api = apiFor(state.built);
  });
  afterAll(async () => {
    await state.built?.close();
    await state.database?.drop();
    if (storageDir !== undefined) rmSync(storageDir, { recursive: true, force: true });
  });
  return state;
}
