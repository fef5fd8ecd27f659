import type { FastifyBaseLogger } from 'fastify';
import type { Readable } from 'node:stream';
import type { ApiRequest } from '../request/api-request.js';
import type { SchemaManager } from '../schema/schema-manager.js';
import type { SchemaSnapshot } from '../schema/schema-snapshot.js';
import type { Scopes } from '../store/scope.js';
import type { Store } from '../store/store.js';

/** What an action may use. Actions do their I/O through `store` only. */
export interface ActionContext {
  readonly request: ApiRequest;
  readonly store: Store;
  /** The caller's scopes, ANDed by the store into every statement on those collections. */
  readonly scopes: Scopes;
  readonly schema: SchemaManager;
  /** The schema as it was when the request arrived. */
  readonly snapshot: SchemaSnapshot;
  readonly log: FastifyBaseLogger;
  /** Builds the public URL of an item, for Location headers. */
  readonly itemUrl: (collection: string, key: unknown) => string;
}

/** The result of an action; `http/` renders it. */
export type ActionResult =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'stream'; status: number; stream: Readable };

export const json = (body: unknown, status = 200, headers?: Record<string, string>): ActionResult =>
  headers === undefined ? { kind: 'json', status, body } : { kind: 'json', status, body, headers };
