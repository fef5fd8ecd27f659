import { readFile } from 'node:fs/promises';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import qs from 'qs';
import type { ActionContext, ActionResult } from './actions/action-context.js';
import { ensureAuthTables } from './auth/auth-tables.js';
import { Authenticator } from './auth/authenticator.js';
import { authorize } from './auth/authorize.js';
import { API_KEYS, ensureAuthCollections, ROLES, SCOPES, USERS } from './auth/system-collections.js';
import { resolveResource } from './actions/action-registry.js';
import { DEFAULT_CONFIG, type Config } from './config/config.js';
import { openDatabase, type Database } from './db/database.js';
import { classifyDriverError } from './db/driver-error.js';
import { ApiError } from './errors/api-error.js';
import type { ErrorCode } from './errors/catalogue.js';
import { answerClientError, isClientAbort, MAX_HEADER_BYTES, requestTimeouts } from './http/client-error.js';
import { drainOnShutdown } from './http/drain-on-shutdown.js';
import { toApiError } from './http/error-body.js';
import { checkMethod, restAction } from './http/method-rules.js';
import { parseResourcePath } from './http/resource-path.js';
import { jsonDepthOver } from './json-depth.js';
import { renderResult } from './http/render-result.js';
import { ALL_METHODS, compileRequestGate } from './http/request-gate.js';
import { requestLoggerFactory } from './http/request-logger.js';
import { REQUEST_ID_PATTERN, requestIdGenerator } from './http/request-id.js';
import { registerOpenApiRoutes } from './openapi/openapi-routes.js';
import { registerStudio } from './studio/studio-routes.js';
import { mergeKeys, type ApiRequest } from './request/api-request.js';
import { parseQueryParams } from './request/query-params.js';
import { SchemaManager } from './schema/schema-manager.js';
import type { SchemaSnapshot } from './schema/schema-snapshot.js';
import type { Dialect } from './schema/types.js';
import { Store, type StoreOptions } from './store/store.js';
import { referencesOf } from './store/cascades.js';
import { bothGrants, grantsOfScopes } from './store/scope.js';
import { Propagation } from './cluster/propagation.js';
import { ChangeFeed, DEFAULT_CHANGES_POLL_MS, DEFAULT_CHANGES_RETENTION_MS } from './changes/change-feed.js';
import { ensureChangesTables } from './changes/changes-table.js';
import { fusable, fusePostgresOutbox } from './changes/fused-outbox.js';
import { outboxHook } from './changes/outbox.js';
import { DEFAULT_WEBHOOK_RETRY_BASE_MS, ensureWebhookTables, WebhookService, type RootCheck } from './webhooks/webhook-service.js';

export interface BuiltApp {
  app: FastifyInstance;
  database: Database;
  schema: SchemaManager;
  /** The data-access layer: register commit hooks here (`store.afterCommit(hook)`). */
  store: Store;
  /** Signs tokens in and out; absent with CORRAL_AUTH=off. */
  auth?: Authenticator;
  /** This node's reader of the change feed (subscribers, changes:list). */
  changes: ChangeFeed;
  /** Webhooks and their delivery loop. */
  webhooks: WebhookService;
  /** Brings changes of users, roles, API keys and the schema into force on every worker and node. */
  propagation: Propagation;
  /** Stops schema polling, finishes in-flight requests, closes the pool. */
  close(): Promise<void>;
}

/** qs settings that read the NocoBase SDK's serialisation (brackets arrays, strict nulls). */
const QS_OPTIONS = { strictNullHandling: true, arrayLimit: 1000, depth: 10, parameterLimit: 2000 } as const;
/**
 * Another node may change the schema between this node's polls: a statement naming a dropped
 * or renamed column fails in the database. Such a failure rolled back, so the request is
 * resolved again against a fresh snapshot and run once more; it then succeeds or answers
 * what the new schema implies (404 COLLECTION_NOT_FOUND, 400 FILTER_UNKNOWN_FIELD, …).
 * Called with the first run's failure (the first run is awaited in the handler itself, so a
 * request that succeeds pays for no wrapper); rethrows it when the schema did not move.
 */
async function runAgainIfSchemaMoved(
  error: unknown,
  run: () => Promise<ActionResult>,
  schema: SchemaManager,
  used: SchemaSnapshot,
  dialect: Dialect,
  log: FastifyBaseLogger,
): Promise<ActionResult> {
  let stored: number | undefined;
  if (error instanceof ApiError) {
    // A name this node's snapshot does not know may have been created by another worker or
    // node since its last poll: answer the 4xx only once the snapshot the request used is
    // known to be current (not the one installed now: another request may have refreshed it).
    if (!SCHEMA_NAME_ERRORS.has(error.code)) throw error;
    stored = await schema.newerVersion(used);
    if (stored === undefined) throw error;
  } else if (classifyDriverError(error, dialect).kind !== 'schemaMoved') throw error;
  log.info({ err: error }, 'the schema moved under this request; reloading it and running the request again');
  await schema.refresh(used, stored);
  return run();
}

/** Refusals that a newer schema could turn into success (an unknown collection, field or association). */
const SCHEMA_NAME_ERRORS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'COLLECTION_NOT_FOUND',
  'ASSOCIATION_NOT_FOUND',
  'FIELD_NOT_FOUND',
  'FILTER_UNKNOWN_FIELD',
  'SORT_UNKNOWN_FIELD',
  'FIELDS_UNKNOWN',
  'APPENDS_UNKNOWN',
  'VALUE_UNKNOWN_FIELD',
]);

/** /readyz answers within 2 s (API.md section 12), whatever the database does. */
export const READYZ_TIMEOUT_MS = 1500;

/** Deepest JSON request body (records, nested writes and their json values all fit well within). */
export const MAX_BODY_DEPTH = 64;

/** Charset names that mean UTF-8 in a Content-Type (the only one Corral reads). */
const UTF8_NAMES: ReadonlySet<string> = new Set(['utf-8', 'utf8']);

const CHARSET_PARAMETER = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/** The charset parameter of a Content-Type, lower case, or undefined when there is none. */
function bodyCharset(contentType: string | undefined): string | undefined {
  // Parameters follow a ';': a plain `application/json` has none (the usual case, no regex run).
  if (contentType === undefined || !contentType.includes(';')) return undefined;
  const match = CHARSET_PARAMETER.exec(contentType);
  return match === null ? undefined : match[1]!.toLowerCase();
}

/** What is wired in code rather than configured. */
export interface BuildOptions {
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
  /** The scope source of each request (tests inject one until roles exist). */
  readonly store?: StoreOptions;
  /**
   * Whether a request comes from root: `webhooks` is a root-only collection (403 FORBIDDEN for
   * anyone else). None: everyone counts as root, as long as there are no roles. What a caller
   * sees of the change feed follows its store scopes (`store.scopes`), like every read.
   */
  readonly isRoot?: RootCheck;
  /** The sign-in limiter's clock (tests move it instead of sleeping); Date.now by default. */
  readonly clock?: () => number;
}

/** The composition root: the only module that sees every other one. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<BuiltApp> {
  const childLoggerFactory = requestLoggerFactory(config.logLevel);
  const newRequestId = requestIdGenerator();
  const bodyTimeoutMs = config.bodyTimeoutMs ?? DEFAULT_CONFIG.bodyTimeoutMs;
  const app = Fastify({
    logger: { level: config.logLevel, ...(options.logStream === undefined ? {} : { stream: options.logStream }) },
    // Above `info`, a request's pino child is made only if something is logged (request-logger.ts).
    ...(childLoggerFactory === undefined ? {} : { childLoggerFactory }),
    bodyLimit: config.bodyLimit,
    routerOptions: { querystringParser: (text: string) => qs.parse(text, QS_OPTIONS) },
    // A client's x-request-id is kept only when it is short and plain (API.md section 12):
    // it is echoed in a header, written to logs and quoted in INTERNAL messages.
    requestIdHeader: false,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : newRequestId();
    },
    // Our own onRequest hook answers 503 SHUTTING_DOWN in the error envelope instead.
    return503OnClosing: false,
    // Request heads up to 64 KiB (a 16 KiB filter fits in a URL); a request without Host gets
    // our envelope (below) instead of Node's empty 400.
    http: { maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: false, ...requestTimeouts(bodyTimeoutMs) },
    // A request (head and body) that has not fully arrived in time is answered 408 REQUEST_TIMEOUT
    // by answerClientError and closed: slow senders cannot hold connections (docs/security.md).
    requestTimeout: bodyTimeoutMs,
    // Requests Node's parser refuses never reach Fastify: answer them in the envelope too.
    clientErrorHandler: answerClientError,
    // request.ip: the right-most X-Forwarded-For address not sent by a listed proxy, else the socket's (proxy-addr).
    ...(config.trustedProxies.length === 0 ? {} : { trustProxy: config.trustedProxies }),
    // Bad URLs and the like are answered before routing: render them like every other error.
    frameworkErrors: (error, request, reply) => {
      const apiError =
        error.code === 'FST_ERR_BAD_URL'
          ? new ApiError('KEY_INVALID', 'the path is not valid percent-encoding')
          : toApiError(error, config.database.dialect, String(request.id));
      void (reply as FastifyReply).status(apiError.status).send({ errors: apiError.entries });
    },
  });
  const connections = drainOnShutdown(app.server);
  const database = await openDatabase(config.database, { connectMs: config.dbConnectTimeoutMs, statementMs: config.dbStatementTimeoutMs }, app.log);
  const schema = new SchemaManager(database, app.log);
  // Destroys report the rows the database cascades to, so the outbox records them too.
  const store = new Store(database, { cursorSecret: config.cursorSecret, log: app.log, ...options.store, references: referencesOf(() => schema.snapshot) });
  const changes = new ChangeFeed(database, {
    pollMs: config.changesPollMs ?? DEFAULT_CHANGES_POLL_MS,
    retentionMs: config.changesRetentionMs ?? DEFAULT_CHANGES_RETENTION_MS,
    ...(config.database.dialect === 'postgres' ? { listenUrl: config.database.url, connectMs: config.dbConnectTimeoutMs } : {}),
    log: app.log,
  });
  const webhooks = new WebhookService(database, changes, {
    retryBaseMs: config.webhookRetryBaseMs ?? DEFAULT_WEBHOOK_RETRY_BASE_MS,
    allowPrivate: config.webhookAllowPrivate ?? false,
    pollMs: config.changesPollMs ?? DEFAULT_CHANGES_POLL_MS,
    log: app.log,
  });
  const authenticator = config.auth.enabled ? new Authenticator(database, config.auth, () => schema.snapshot, app.log, options.clock, store.shapes) : undefined;
  const propagation = new Propagation({
    database,
    pollMs: config.schemaPollMs,
    ...(config.database.dialect === 'postgres' ? { listenUrl: config.database.url, connectMs: config.dbConnectTimeoutMs } : {}),
    log: app.log,
    apply: async (notice) => {
      if (notice.auth) authenticator?.forgetUsers();
      if (notice.schemaVersion !== undefined) await schema.catchUp(notice.schemaVersion);
    },
  });
  try {
    await schema.init();
    // The auth collections first: a schema file's collections may point at users (createdBy: true).
    await ensureAuthTables(database.db, database.dialect, database.mysqlCollation);
    await ensureAuthCollections(schema, database, { email: config.auth.rootEmail, ...(config.auth.rootPassword === undefined ? {} : { password: config.auth.rootPassword }) }, app.log);
    if (config.schemaFile !== undefined) {
      const text = await readFile(config.schemaFile, 'utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new Error(`CORRAL_SCHEMA: ${config.schemaFile} is not valid JSON`);
      }
      await schema.applySchemaFile(parsed).catch((error: unknown) => {
        throw new Error(`CORRAL_SCHEMA: ${error instanceof ApiError ? error.message : String(error)}`);
      });
    }
    await authenticator?.init(config.schemaPollMs);
    await ensureChangesTables(database.db, database.dialect);
    store.outbox(outboxHook(() => schema.snapshot), database.dialect === 'postgres' ? { accepts: fusable, fuse: fusePostgresOutbox } : undefined);
    await ensureWebhookTables(database, schema.snapshot.get('webhooks'));
    store.afterCommit(() => {
      changes.wake();
      webhooks.wake();
    });
    await changes.start();
    webhooks.start();
    await propagation.start();
  } catch (error) {
    await propagation.close();
    await webhooks.close().catch((closeError: unknown) => app.log.error({ err: closeError }, 'stopping webhook delivery after a failed start failed'));
    await changes.close().catch((closeError: unknown) => app.log.error({ err: closeError }, 'stopping the change feed after a failed start failed'));
    await database.close().catch((closeError: unknown) => app.log.error({ err: closeError }, 'closing the database after a failed start failed'));
    throw error;
  }
  schema.startPolling(config.schemaPollMs);
  // A change is in force on every worker of this node before it is acknowledged (docs/auth.md#propagation).
  schema.onChanged((version) => propagation.announce({ auth: false, schemaVersion: version }));
  if (authenticator !== undefined) {
    // A user's roles, the scope rows they name (and the fields scope filters read) apply from the next request, here and on the other workers.
    store.afterCommit((changes) => {
      if (changes.get(USERS) === undefined && changes.get(ROLES) === undefined && changes.get(API_KEYS) === undefined && changes.get(SCOPES) === undefined) return undefined;
      authenticator.forgetUsers();
      return propagation.announce({ auth: true });
    });
  }

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const charset = bodyCharset(request.headers['content-type']);
    if (charset !== undefined && !UTF8_NAMES.has(charset)) {
      return done(new ApiError('UNSUPPORTED_MEDIA_TYPE', `the body must be UTF-8 JSON (got charset=${charset.slice(0, 40)})`), undefined);
    }
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(new ApiError('BODY_INVALID_JSON'), undefined);
    }
    // No action takes a bare null: `PUT /api/posts/1` with null is a mistake, not an empty update.
    if (parsed === null) return done(new ApiError('BODY_INVALID', 'the body must not be null'), undefined);
    if (jsonDepthOver(parsed, MAX_BODY_DEPTH)) return done(new ApiError('BODY_INVALID', `the body nests deeper than ${MAX_BODY_DEPTH} levels`), undefined);
    done(null, parsed);
  });

  // axios (the NocoBase SDK) labels a body-less POST such as auth:signOut as a form: accept it when empty.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    if ((typeof body === 'string' ? body : body.toString('utf8')) === '') return done(null, undefined);
    done(new ApiError('UNSUPPORTED_MEDIA_TYPE'), undefined);
  });

  let closing = false;
  // Request id, shutdown, method, Host and Origin rules, CORS: one hook (src/http/request-gate.ts).
  app.addHook(
    'onRequest',
    compileRequestGate({ corsOrigins: config.corsOrigins, allowedHosts: config.allowedHosts, listenHost: config.host, isClosing: () => closing }),
  );

  app.setErrorHandler((error, request, reply) => {
    const apiError = isClientAbort(error, request.raw)
      ? new ApiError('REQUEST_ABORTED', undefined, { cause: error })
      : toApiError(error, database.dialect, request.id);
    if (apiError.status >= 500) request.log.error({ err: apiError.cause ?? error }, apiError.message);
    else if (apiError.cause !== undefined) request.log.info({ err: apiError.cause }, apiError.message);
    void reply.status(apiError.status).headers(apiError.headers).send({ errors: apiError.entries });
  });

  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({ errors: new ApiError('ROUTE_NOT_FOUND', `no route for ${request.method} ${request.url.split('?')[0]}`).entries });
  });

  app.get('/healthz', async () => ({ data: { status: 'ok' } }));
  app.get('/readyz', async () => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        database.ping(),
        new Promise((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${READYZ_TIMEOUT_MS} ms`)), READYZ_TIMEOUT_MS);
        }),
      ]);
    } catch (error) {
      throw new ApiError('DATABASE_UNAVAILABLE', undefined, { cause: error });
    } finally {
      clearTimeout(timer);
    }
    return { data: { status: 'ready', dialect: database.dialect } };
  });

  const prefix = config.apiPrefix;
  // The API description and its reference page, generated from the live schema (API.md §10).
  registerOpenApiRoutes(
    app,
    schema,
    prefix,
    authenticator === undefined ? undefined : async (request) => authenticator.access(await authenticator.authenticate(request.headers.authorization, headerText(request.headers['x-role']))),
  );

  // Corral Studio at / and /studio/… (CORRAL_STUDIO): its own routes, off the API's path.
  if (config.studio !== false) registerStudio(app, { prefix });

  const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const url = request.url;
    const query = url.indexOf('?');
    const rawPath = url.slice(prefix.length + 1, query === -1 ? url.length : query);
    const path = parseResourcePath(rawPath);
    if (path === undefined) throw new ApiError('ROUTE_NOT_FOUND', `no route for ${request.method} ${prefix}/${rawPath}`);
    const isPublic = path.association === undefined && path.sourceKey === undefined
      && ((path.collection === 'auth' && path.action === 'signIn') || (path.collection === 'app' && path.action === 'getInfo'));
    const principal = authenticator === undefined || isPublic
      ? undefined
      : await authenticator.authenticate(request.headers.authorization, headerText(request.headers['x-role']));
    let used = schema.snapshot;
    const runAction = async (): Promise<ActionResult> => {
      const snapshot = schema.snapshot;
      used = snapshot;
      const resource = resolveResource(path, snapshot);
      const action = resource.action(path.action ?? restAction(request.method, path.key !== undefined, resource.toOne));
      checkMethod(action.kind, request.method);
      const params = parseQueryParams((request.query ?? {}) as Record<string, unknown>, request.headers);
      const keys = mergeKeys(path.key, params.filterByTk);
      const apiRequest: ApiRequest = {
        id: request.id,
        method: request.method,
        path,
        action: action.name,
        ...(keys === undefined ? {} : { keys }),
        params,
        body: request.body,
        ...(principal === undefined ? {} : { principal }),
      };
      let grants = grantsOfScopes(store.scopesFor(apiRequest, snapshot));
      // Auth off: everyone is root. Else root is the root role (webhooks are root-only).
      let root = authenticator === undefined;
      if (principal !== undefined && authenticator !== undefined) {
        const access = await authenticator.access(principal);
        root = access.root;
        grants = bothGrants(grants, authorize(access, apiRequest, snapshot));
      }
      const context: ActionContext = {
        request: apiRequest,
        store,
        grants,
        scopes: grants.view,
        schema,
        snapshot,
        log: request.log,
        changes,
        webhooks,
        isRoot: options.isRoot ?? (() => root),
        ...(authenticator === undefined ? {} : { auth: { authenticator, address: request.ip } }),
      };
      return action.run(context);
    };
    let result: ActionResult;
    try {
      result = await runAction();
    } catch (error) {
      result = await runAgainIfSchemaMoved(error, runAction, schema, used, database.dialect, request.log);
    }
    return renderResult(result, reply, prefix);
  };
  app.route({ method: [...ALL_METHODS], url: `${prefix}/*`, handler: handle });

  let closed = false;
  return {
    app,
    database,
    schema,
    store,
    ...(authenticator === undefined ? {} : { auth: authenticator }),
    changes,
    webhooks,
    propagation,
    close: async () => {
      if (closed) return;
      closed = true;
      closing = true;
      connections.drain();
      schema.stopPolling();
      authenticator?.stop();
      await propagation.close();
      // Ends the open event streams, which would otherwise hold the server open.
      await webhooks.close();
      await changes.close();
      await app.close();
      await database.close();
    },
  };
}

/** A header sent once (a repeated one counts as absent). */
function headerText(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
