import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import qs from 'qs';
import type { ActionResult } from './actions/action-context.js';
import { resolveResource } from './actions/action-registry.js';
import type { Config } from './config/config.js';
import { openDatabase, type Database } from './db/database.js';
import { ApiError } from './errors/api-error.js';
import { drainOnShutdown } from './http/drain-on-shutdown.js';
import { toApiError } from './http/error-body.js';
import { checkMethod, restAction } from './http/method-rules.js';
import { parseResourcePath } from './http/resource-path.js';
import { renderResult } from './http/render-result.js';
import { mergeKeys, type ApiRequest } from './request/api-request.js';
import { parseQueryParams } from './request/query-params.js';
import { SchemaManager } from './schema/schema-manager.js';
import { Store, type StoreOptions } from './store/store.js';
import { referencesOf } from './store/cascades.js';
import { ChangeFeed, DEFAULT_CHANGES_POLL_MS, DEFAULT_CHANGES_RETENTION_MS } from './changes/change-feed.js';
import { ensureChangesTables } from './changes/changes-table.js';
import type { EventGuard } from './changes/event-guard.js';
import { outboxHook } from './changes/outbox.js';
import { DEFAULT_WEBHOOK_RETRY_BASE_MS, ensureWebhookTables, WebhookService } from './webhooks/webhook-service.js';

export interface BuiltApp {
  app: FastifyInstance;
  database: Database;
  schema: SchemaManager;
  /** The data-access layer: register commit hooks here (`store.afterCommit(hook)`). */
  store: Store;
  /** This node's reader of the change feed (subscribers, changes:list). */
  changes: ChangeFeed;
  /** Webhooks and their delivery loop. */
  webhooks: WebhookService;
  /** Stops schema polling, finishes in-flight requests, closes the pool. */
  close(): Promise<void>;
}

/** qs settings that read the NocoBase SDK's serialisation (brackets arrays, strict nulls). */
const QS_OPTIONS = { strictNullHandling: true, arrayLimit: 1000, depth: 10, parameterLimit: 2000 } as const;
const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** The composition root: the only module that sees every other one. */
/** What is wired in code rather than configured: the scope source of each request. */
export interface BuildOptions {
  readonly store?: StoreOptions;
  /** What a caller may see of change events (the permission seam; none: everything). */
  readonly eventGuard?: EventGuard;
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<BuiltApp> {
  const app = Fastify({
    logger: { level: config.logLevel },
    bodyLimit: config.bodyLimit,
    routerOptions: { querystringParser: (text: string) => qs.parse(text, QS_OPTIONS) },
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // Our own onRequest hook answers 503 SHUTTING_DOWN in the error envelope instead.
    return503OnClosing: false,
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
  const database = await openDatabase(config.database, app.log);
  const schema = new SchemaManager(database, app.log);
  // Destroys report the rows the database cascades to, so the outbox records them too.
  const store = new Store(database, { ...options.store, references: referencesOf(() => schema.snapshot) });
  const changes = new ChangeFeed(database, {
    pollMs: config.changesPollMs ?? DEFAULT_CHANGES_POLL_MS,
    retentionMs: config.changesRetentionMs ?? DEFAULT_CHANGES_RETENTION_MS,
    ...(config.database.dialect === 'postgres' ? { listenUrl: config.database.url } : {}),
    log: app.log,
  });
  const webhooks = new WebhookService(database, changes, {
    retryBaseMs: config.webhookRetryBaseMs ?? DEFAULT_WEBHOOK_RETRY_BASE_MS,
    allowPrivate: config.webhookAllowPrivate ?? false,
    pollMs: config.changesPollMs ?? DEFAULT_CHANGES_POLL_MS,
    log: app.log,
  });
  try {
    await schema.init();
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
    await ensureChangesTables(database.db, database.dialect);
    store.beforeCommit(outboxHook(() => schema.snapshot));
    await ensureWebhookTables(database.db, database.dialect);
    store.afterCommit(() => {
      changes.wake();
      webhooks.wake();
    });
    await changes.start();
    webhooks.start();
  } catch (error) {
    await webhooks.close().catch(() => undefined);
    await changes.close().catch(() => undefined);
    await database.close().catch((closeError: unknown) => app.log.error({ err: closeError }, 'closing the database after a failed start failed'));
    throw error;
  }
  schema.startPolling(config.schemaPollMs);

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ApiError('BODY_INVALID_JSON'), undefined);
    }
  });

  let closing = false;
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (!closing) return done();
    reply.header('connection', 'close');
    done(new ApiError('SHUTTING_DOWN'));
  });

  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error, database.dialect, request.id);
    if (apiError.status >= 500) request.log.error({ err: apiError.cause ?? error }, apiError.message);
    else if (apiError.cause !== undefined) request.log.info({ err: apiError.cause }, apiError.message);
    void reply.status(apiError.status).headers(apiError.headers).send({ errors: apiError.entries });
  });

  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({ errors: new ApiError('ROUTE_NOT_FOUND', `no route for ${request.method} ${request.url.split('?')[0]}`).entries });
  });

  app.get('/healthz', async () => ({ data: { status: 'ok' } }));
  app.get('/readyz', async () => {
    try {
      await database.ping();
    } catch (error) {
      throw new ApiError('DATABASE_UNAVAILABLE', undefined, { cause: error });
    }
    return { data: { status: 'ready', dialect: database.dialect } };
  });

  const prefix = config.apiPrefix;

  const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const rawPath = request.url.split('?', 1)[0]!.slice(prefix.length + 1);
    const path = parseResourcePath(rawPath);
    if (path === undefined) throw new ApiError('ROUTE_NOT_FOUND', `no route for ${request.method} ${prefix}/${rawPath}`);
    const snapshot = schema.snapshot;
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
    };
    const scopes = store.scopesFor(apiRequest, snapshot);
    const result: ActionResult = await action.run({
      request: apiRequest,
      store,
      scopes,
      schema,
      snapshot,
      log: request.log,
      changes,
      webhooks,
      ...(options.eventGuard === undefined ? {} : { eventGuard: options.eventGuard }),
    });
    return renderResult(result, reply, prefix);
  };
  app.route({ method: [...ALL_METHODS], url: `${prefix}/*`, handler: handle });

  let closed = false;
  return {
    app,
    database,
    schema,
    store,
    changes,
    webhooks,
    close: async () => {
      if (closed) return;
      closed = true;
      closing = true;
      connections.drain();
      schema.stopPolling();
      // Ends the open event streams, which would otherwise hold the server open.
      await webhooks.close();
      await changes.close();
      await app.close();
      await database.close();
    },
  };
}
