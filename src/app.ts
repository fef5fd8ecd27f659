import { readFile } from 'node:fs/promises';
import Fastify, { type FastifyInstance } from 'fastify';
import { Authenticator } from './auth/authenticator.js';
import { API_KEYS, ensureAuthCollections, ROLES, SCOPES, USERS } from './auth/system-collections.js';
import { DEFAULT_CONFIG, type Config } from './config/config.js';
import { importLimits } from './config/import-settings.js';
import { openDatabase, type Database } from './db/database.js';
import { listenUrlOf } from './db/listen-url.js';
import { connectionSchemaOf } from './db/connection-schema.js';
import { isReadOnlyRefusal } from './db/driver-error.js';
import { ApiError } from './errors/api-error.js';
import { registerBodyParsers } from './http/body-parsers.js';
import { registerMultipart } from './http/multipart.js';
import { drainOnShutdown } from './http/drain-on-shutdown.js';
import { registerErrorHandlers } from './http/error-handlers.js';
import { fastifyOptions } from './http/fastify-options.js';
import { handleRequest } from './http/handle-request.js';
import { registerHealthRoutes } from './http/health-routes.js';
import { requestAccess } from './http/request-access.js';
import { ALL_METHODS, compileRequestGate } from './http/request-gate.js';
import { registerRequestLog, requestLogController } from './http/request-log.js';
import { registerCompression } from './http/compression.js';
import { registerMetrics } from './metrics/metrics-routes.js';
import { registerStreamTickets } from './http/stream-ticket-gate.js';
import { registerOpenApiRoutes } from './openapi/openapi-routes.js';
import { registerStudio } from './studio/studio-routes.js';
import { SchemaManager } from './schema/schema-manager.js';
import { Store, type StoreOptions } from './store/store.js';
import { referencesOf } from './store/cascades.js';
import { Propagation } from './cluster/propagation.js';
import { ChangeFeed, DEFAULT_CHANGES_POLL_MS, DEFAULT_CHANGES_RETENTION_MS } from './changes/change-feed.js';
import { ensureChangesTables } from './changes/changes-table.js';
import { outboxHook } from './changes/outbox.js';
import { DEFAULT_WEBHOOK_RETRY_BASE_MS, WebhookService } from './webhooks/webhook-service.js';
import { WEBHOOKS } from './webhooks/webhook-definitions.js';
import { writeFastPathOf } from './write-paths/write-fast-path-of.js';
import { startAttachmentFiles } from './files/start-attachment-files.js';
import type { StagingStorage } from './files/staging-storage.js';
import { ATTACHMENTS } from './files/attachment-definition.js';

export interface BuiltApp {
  app: FastifyInstance;
  database: Database;
  schema: SchemaManager;
  /** The data-access layer: register commit hooks here (`store.afterCommit(hook)`). */
  store: Store;
  /** Attachment storage; `firstSweep` is the orphan sweep started with the app. */
  files: { readonly files: import('./files/attachment-files.js').AttachmentFiles; readonly firstSweep: Promise<void> };
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

/** What is wired in code rather than configured. */
export interface BuildOptions {
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
  /** The scope source of each request (tests inject one until roles exist). */
  readonly store?: StoreOptions;
  /** The sign-in limiter's clock (tests move it instead of sleeping); Date.now by default. */
  readonly clock?: () => number;
  /** Where attachment bytes go instead of CORRAL_STORAGE_DIR (tests). */
  readonly storage?: StagingStorage;
}

/** The composition root: the only module that sees every other one. */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<BuiltApp> {
  const app = Fastify(fastifyOptions(config, options.logStream));
  registerRequestLog(app, config.logLevel);
  registerCompression(app, config.compression !== false);
  const connections = drainOnShutdown(app.server);
  const database = await openDatabase(config.database, { connectMs: config.dbConnectTimeoutMs, statementMs: config.dbStatementTimeoutMs }, app.log);
  const schema = new SchemaManager(database, app.log);
  // Destroys report the rows the database cascades to, so the outbox records them too.
  const counts = { exactLimit: config.exactCountLimit ?? DEFAULT_CONFIG.exactCountLimit, maxOffset: config.maxOffset ?? DEFAULT_CONFIG.maxOffset };
  const store = new Store(database, { cursorSecret: config.cursorSecret, counts, log: app.log, ...options.store, references: referencesOf(() => schema.snapshot) });
  // A database that pushes notices (LISTEN) wakes the change feed and propagation; the others are polled.
  const listenUrl = listenUrlOf(config.database);
  const listen = listenUrl === undefined ? {} : { listenUrl, connectMs: config.dbConnectTimeoutMs };
  const pollMs = config.changesPollMs ?? DEFAULT_CHANGES_POLL_MS;
  const changes = new ChangeFeed(database, { pollMs, retentionMs: config.changesRetentionMs ?? DEFAULT_CHANGES_RETENTION_MS, ...listen, log: app.log });
  // Every system row is read and written through the store's system door (store/system/system-door.ts).
  const system = store.system();
  const webhookRows = system.webhooks(() => schema.snapshot.get(WEBHOOKS));
  const webhooks = new WebhookService(webhookRows, changes, { retryBaseMs: config.webhookRetryBaseMs ?? DEFAULT_WEBHOOK_RETRY_BASE_MS, allowPrivate: config.webhookAllowPrivate ?? false, pollMs, log: app.log });
  const authenticator = config.auth.enabled ? new Authenticator(system, config.auth, () => schema.snapshot, app.log, options.clock) : undefined;
  let files: Awaited<ReturnType<typeof startAttachmentFiles>> | undefined;
  const propagation = new Propagation({
    database,
    pollMs: config.schemaPollMs,
    ...listen,
    log: app.log,
    apply: async (notice) => {
      if (notice.auth) {
        authenticator?.forgetUsers();
        // Open streams check their callers again (docs/events.md#revocation).
        changes.recheck();
      }
      if (notice.schemaVersion !== undefined) await schema.catchUp(notice.schemaVersion);
    },
  });
  try {
    await schema.init();
    // The auth collections first: a schema file's collections may point at users (createdBy: true).
    await system.ensureAuthTables();
    // The outbox before the seeding: the root role and user are written with their change events.
    await ensureChangesTables(database.db, database.dialect);
    store.outbox(outboxHook(() => schema.snapshot), writeFastPathOf(database));
    await ensureAuthCollections(schema, system, { email: config.auth.rootEmail, ...(config.auth.rootPassword === undefined ? {} : { password: config.auth.rootPassword }) }, app.log);
    if (config.schemaFile !== undefined) await applySchemaFile(schema, config.schemaFile);
    // The database's own tables (CORRAL_INTROSPECT): read from its catalogue, never written at start.
    const connectionSchema = connectionSchemaOf(config.database);
    schema.useIntrospection({ include: [], exclude: [], ...config.introspect, ...(connectionSchema === undefined ? {} : { connectionSchema }) });
    if (config.introspect !== undefined) await introspectAtStart(schema, app.log);
    await authenticator?.init(config.schemaPollMs);
    await system.ensureWebhookTables(schema.snapshot.get(WEBHOOKS));
    store.afterCommit(() => {
      changes.wake();
      webhooks.wake();
    });
    await changes.start();
    webhooks.start();
    await propagation.start();
    files = await startAttachmentFiles({ config, store, attachments: () => schema.snapshot.get(ATTACHMENTS), storage: options.storage, log: app.log });
  } catch (error) {
    await closeAfterFailedStart({ app, database, changes, webhooks, propagation });
    throw error;
  }
  schema.startPolling(config.schemaPollMs);
  // A change is in force on every worker of this node before it is acknowledged (docs/auth.md#propagation).
  schema.onChanged((version) => propagation.announce({ auth: false, schemaVersion: version }));
  if (authenticator !== undefined) followAuthChanges(store, authenticator, changes, propagation);

  const metrics = await registerMetrics(app, { config: config.metrics, prefix: config.apiPrefix, database, schema, changes, webhookDeliveries: () => webhookRows.countsByStatus() });
  if (authenticator !== undefined) registerStreamTickets(app, authenticator, config.apiPrefix);
  registerBodyParsers(app);
  registerMultipart(app);
  let closing = false;
  // Request id, shutdown, method, Host and Origin rules, CORS: one hook (src/http/request-gate.ts).
  app.addHook('onRequest', compileRequestGate({ corsOrigins: config.corsOrigins, allowedHosts: config.allowedHosts, listenHost: config.host, isClosing: () => closing }));
  registerErrorHandlers(app, database.dialect);
  registerHealthRoutes(app, database);
  const prefix = config.apiPrefix;
  // The API description and its reference page, generated from the live schema (API.md §10).
  registerOpenApiRoutes(app, schema, prefix, authenticator === undefined ? undefined : requestAccess(authenticator));
  // Corral Studio at / and /studio/… (CORRAL_STUDIO): its own routes, off the API's path.
  if (config.studio !== false) registerStudio(app, { prefix });
  const imports = importLimits(config);
  app.route({ method: [...ALL_METHODS], url: `${prefix}/*`, handler: handleRequest({ prefix, dialect: database.dialect, schema, store, changes, webhooks, authenticator, imports, files: files!.files }) });

  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    closing = true;
    connections.drain();
    files?.stop();
    await stopInOrder({ app, database, schema, auth: authenticator, changes, webhooks, propagation }, metrics);
    files?.close();
  };
  return { app, database, schema, store, files: files!, ...(authenticator === undefined ? {} : { auth: authenticator }), changes, webhooks, propagation, close };
}

/**
 * A user's roles, the scope rows they name (and the fields scope filters read) apply from the next
 * request, here and on the other workers; open streams check their callers again before the
 * change is acknowledged (docs/events.md#revocation).
 */
function followAuthChanges(store: Store, authenticator: Authenticator, changes: ChangeFeed, propagation: Propagation): void {
  store.afterCommit((committed) => {
    if (committed.get(USERS) === undefined && committed.get(ROLES) === undefined && committed.get(API_KEYS) === undefined && committed.get(SCOPES) === undefined) return undefined;
    authenticator.forgetUsers();
    changes.recheck();
    return propagation.announce({ auth: true });
  });
}

/** Undoes a start that failed half-way: pollers and feeds, then the pool; a failure to stop one is logged, not thrown. */
async function closeAfterFailedStart(parts: Pick<BuiltApp, 'app' | 'database' | 'changes' | 'webhooks' | 'propagation'>): Promise<void> {
  const { app } = parts;
  await parts.propagation.close();
  await parts.webhooks.close().catch((closeError: unknown) => app.log.error({ err: closeError }, 'stopping webhook delivery after a failed start failed'));
  await parts.changes.close().catch((closeError: unknown) => app.log.error({ err: closeError }, 'stopping the change feed after a failed start failed'));
  await parts.database.close().catch((closeError: unknown) => app.log.error({ err: closeError }, 'closing the database after a failed start failed'));
}

/** Stops what buildApp started: pollers and feeds first, then the server (its in-flight requests), the pool last. */
async function stopInOrder(parts: Omit<BuiltApp, 'store' | 'close' | 'files'>, metrics: { close(): Promise<void> }): Promise<void> {
  parts.schema.stopPolling();
  parts.auth?.stop();
  await parts.propagation.close();
  // Ends the open event streams, which would otherwise hold the server open.
  await parts.webhooks.close();
  await parts.changes.close();
  await parts.app.close();
  await metrics.close();
  await parts.database.close();
}

/** CORRAL_SCHEMA: the schema file applied at start; a bad file stops the start with a one-line message. */
async function applySchemaFile(schema: SchemaManager, file: string): Promise<void> {
  const text = await readFile(file, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`CORRAL_SCHEMA: ${file} is not valid JSON`);
  }
  await schema.applySchemaFile(parsed).catch((error: unknown) => {
    throw new Error(`CORRAL_SCHEMA: ${error instanceof ApiError ? error.message : String(error)}`);
  });
}

/** CORRAL_INTROSPECT=on: the catalogue's tables are registered (or brought up to date) before the server listens. */
async function introspectAtStart(schema: SchemaManager, log: FastifyInstance['log']): Promise<void> {
  const report = await schema.syncIntrospected().catch((error: unknown) => {
    // A role that may only read serves the definitions stored by an earlier start as the owner.
    if (isReadOnlyRefusal(error) || (error instanceof ApiError && error.code === 'DATABASE_READ_ONLY')) {
      log.warn({ err: error }, 'introspection: the database role may not store what the catalogue says now; serving the collections registered before');
      return undefined;
    }
    throw new Error(`CORRAL_INTROSPECT: ${error instanceof ApiError ? error.message : error instanceof Error ? error.message : String(error)}`);
  });
  const served = schema.snapshot.defs.filter((def) => def.managed === false).length;
  if (report === undefined) return;
  log.info({ added: report.added, changed: report.changed.map((change) => change.collection), removed: report.removed, skipped: report.skipped }, `introspection: serving ${served} existing tables and views`);
}
