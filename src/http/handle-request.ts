import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { ActionContext, ActionResult } from '../actions/action-context.js';
import { resolveResource } from '../actions/action-registry.js';
import type { Authenticator } from '../auth/authenticator.js';
import { authorize } from '../auth/authorize.js';
import type { ChangeFeed } from '../changes/change-feed.js';
import { classifyDriverError } from '../db/driver-error.js';
import { ApiError } from '../errors/api-error.js';
import type { ErrorCode } from '../errors/catalogue.js';
import { mergeKeys, type ApiRequest } from '../request/api-request.js';
import { parseQueryParams } from '../request/query-params.js';
import type { SchemaManager } from '../schema/schema-manager.js';
import type { SchemaSnapshot } from '../schema/schema-snapshot.js';
import type { Dialect } from '../schema/types.js';
import { bothGrants, grantsOfScopes } from '../store/scope.js';
import type { Store } from '../store/store.js';
import type { ImportLimits } from '../import/import-upload.js';
import type { WebhookService } from '../webhooks/webhook-service.js';
import { headerText } from './header-text.js';
import { toApiError } from './error-body.js';
import { checkMethod, restAction } from '../request/method-rules.js';
import { renderResult } from './render-result.js';
import { firstFilePart, uploadBodyOf } from './multipart.js';
import type { AttachmentFiles } from '../files/attachment-files.js';
import { parseResourcePath } from '../request/resource-path.js';
import { streamRecheck } from './stream-recheck.js';

/** What the resource handler works with: the services of one app, nothing else. */
export interface RequestHandlerParts {
  /** The API prefix (`/api`): the handler serves `${prefix}/*`. */
  readonly prefix: string;
  readonly dialect: Dialect;
  readonly schema: SchemaManager;
  readonly store: Store;
  readonly changes: ChangeFeed;
  readonly webhooks: WebhookService;
  /** Absent with CORRAL_AUTH=off. */
  readonly authenticator: Authenticator | undefined;
  /** CORRAL_IMPORT_MAX_BYTES and CORRAL_IMPORT_MAX_ROWS. */
  readonly imports?: ImportLimits;
  /** Attachment storage and upload limits. */
  readonly files?: AttachmentFiles;
}

/**
 * The handler of every resource route: path → principal → action run under its grants →
 * rendered result, run once more when the schema moved under it.
 */
export function handleRequest(parts: RequestHandlerParts): (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> {
  const { prefix, schema, store, changes, webhooks, authenticator } = parts;
  return async (request, reply) => {
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
    /** The request the action ran (an event stream's is authorized again later). */
    let opened: ApiRequest | undefined;
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
        body: uploadBodyOf(request, action.name) ?? request.body,
        ...(principal === undefined ? {} : { principal }),
        ...(request.isMultipart() ? { upload: firstFilePart(request) } : {}),
        ...(path.association === 'content' ? { download: { range: headerText(request.headers.range), ifRange: headerText(request.headers['if-range']), ifNoneMatch: headerText(request.headers['if-none-match']) } } : {}),
      };
      opened = apiRequest;
      let grants = grantsOfScopes(store.scopesFor(apiRequest, snapshot));
      // Root-only resources are grants of the root role, which the store evaluates (store/root-only.ts).
      if (principal !== undefined && authenticator !== undefined) {
        const access = await authenticator.access(principal);
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
        ...(parts.imports === undefined ? {} : { imports: parts.imports }),
        ...(parts.files === undefined ? {} : { files: parts.files }),
        ...(authenticator === undefined ? {} : { auth: { authenticator, address: request.ip } }),
      };
      return action.run(context);
    };
    let result: ActionResult;
    try {
      result = await runAction();
    } catch (error) {
      result = await runAgainIfSchemaMoved(error, runAction, schema, used, parts.dialect, request.log);
    }
    if (result.kind === 'events' && principal !== undefined && authenticator !== undefined && opened !== undefined) {
      // An open stream follows its caller's access: re-checked at every change of users, roles or grants.
      const recheck = streamRecheck({ request: opened, principal, authenticator, store, schema });
      const { open } = result;
      result = { kind: 'events', open: (raw, response, headers) => open(raw, response, headers, recheck) };
    }
    return renderResult(result, reply, prefix, (error) => toApiError(error, parts.dialect, request.id));
  };
}

/**
 * Another node may change the schema between this node's polls: a statement naming a dropped
 * or renamed column fails in the database. Such a failure rolled back, so the request is
 * resolved again against a fresh snapshot and run once more; it then succeeds or answers
 * what the new schema implies (404 COLLECTION_NOT_FOUND, 400 FILTER_UNKNOWN_FIELD, …).
 * Called with the first run's failure (the first run is awaited in the handler itself, so a
 * request that succeeds pays for no wrapper); rethrows it when the schema did not move.
 */
export async function runAgainIfSchemaMoved(
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
