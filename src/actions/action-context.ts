import type { FastifyBaseLogger } from 'fastify';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Authenticator } from '../auth/authenticator.js';
import type { AttachmentFiles } from '../files/attachment-files.js';
import type { ChangeFeed } from '../changes/change-feed.js';
import type { WebhookService } from '../webhooks/webhook-service.js';
import type { ApiRequest } from '../request/api-request.js';
import type { SchemaManager } from '../schema/schema-manager.js';
import type { SchemaSnapshot } from '../schema/schema-snapshot.js';
import type { Grants, Scopes } from '../store/scope.js';
import type { Store } from '../store/store.js';
import type { ImportLimits } from '../import/import-upload.js';

/** What an action may use. Actions do their I/O through `store` only. */
export interface ActionContext {
  readonly request: ApiRequest;
  readonly store: Store;
  /** What the caller may do on each collection: the store checks it for every statement it runs. */
  readonly grants: Grants;
  /** The caller's `view` scopes (`grants.view`), for what reads events outside the store (the change feed). */
  readonly scopes: Scopes;
  readonly schema: SchemaManager;
  /** The schema as it was when the request arrived. */
  readonly snapshot: SchemaSnapshot;
  readonly log: FastifyBaseLogger;
  /** The authenticator and the client's address; absent with CORRAL_AUTH=off. */
  readonly auth?: { readonly authenticator: Authenticator; readonly address: string };
  /** This node's reader of the change feed (subscribe, changes:list). */
  readonly changes?: ChangeFeed;
  /** CORRAL_IMPORT_MAX_BYTES and CORRAL_IMPORT_MAX_ROWS (import-action.ts defaults when absent). */
  readonly imports?: ImportLimits;
  /** The webhooks system collection and its delivery loop. */
  readonly webhooks?: WebhookService;
  /** The attachment storage, upload limit and key locks (absent: uploads are not served). */
  readonly files?: AttachmentFiles;
}

/** One object of an answer: a decoded item, or a schema definition. */
export type Data = object;

/** Where a list page stands: with the total (`count`), or only whether a next page exists. */
export type Paging =
  /** `estimated`: `count` is the database's estimate (meta.countEstimated), not a count. */
  | { page: number; pageSize: number; count: number; estimated?: true }
  | { page: number; pageSize: number; hasNext: boolean }
  /** Keyset paging: `nextCursor` is null on the last page. */
  | { pageSize: number; hasNext: boolean; nextCursor: string | null };

/**
 * The typed result of an action; `http/render-result.ts` turns each kind into its one
 * envelope and status, so every action maps to one response type.
 */
export type ActionResult =
  /** 200 `{data: item}` */
  | { kind: 'item'; item: Data }
  /** 200 `{data: [items]}` */
  | { kind: 'items'; items: Data[] }
  /** 200 `{data: [items], meta}`: meta computed from `paging` by the renderer */
  | { kind: 'page'; items: Data[]; paging: Paging }
  /** 200 `{data: n}` */
  | { kind: 'count'; n: number }
  /** 201 `{data: item}` with Location: the path under the API prefix, one segment each */
  | { kind: 'created'; item: Data; location: readonly string[] }
  /** 201 `{data: [items]}` (bulk create) */
  | { kind: 'createdMany'; items: Data[] }
  /** 200 `{data: null}` */
  | { kind: 'none' }
  /** 200 with a bare JSON document, no envelope (the schema export, ready to save as a file) */
  | { kind: 'document'; body: object }
  /** 200 `{"data": [...]}` written as it is read */
  | { kind: 'stream'; stream: Readable }
  /** A stored file's bytes (200, or 206 for a range), or none (HEAD, 304): status and headers as given */
  | { kind: 'content'; status: 200 | 206 | 304; headers: Readonly<Record<string, string>>; stream?: Readable }
  /** 200 with a file's bytes as they are written (`Content-Disposition: attachment`): an export */
  | { kind: 'file'; stream: Readable; contentType: string; filename: string }
  /**
   * A long write (an import): `run` does it, reporting progress; rendered as the result `run`
   * answers, or with `Accept: text/event-stream` as progress events and then that result.
   */
  | { kind: 'job'; run(progress: (state: JobProgress) => void): Promise<ActionResult> }
  /**
   * 200 `text/event-stream`, written by `open` until the client or the node goes; `recheck`
   * (given by the handler) re-authorizes the caller after a change of users, roles or grants.
   */
  | { kind: 'events'; open(request: IncomingMessage, response: ServerResponse, headers: OutgoingHttpHeaders, recheck?: StreamRecheck): void };

/**
 * The caller of an open stream authorized again, as stored now: its grants (root's included)
 * and their `view` scopes. Rejects with an ApiError (STREAM_REVOKED, FORBIDDEN, …) when it may no longer
 * read the collection.
 */
export type StreamRecheck = () => Promise<{ readonly grants: Grants; readonly scopes: Scopes }>;

/** How far a job is: rows processed, of `total` when known. */
export interface JobProgress {
  readonly processed: number;
  readonly total?: number;
  /** Bytes of the job's input read so far, of `bytes` (an import of a CSV file: the rows' total is not known until the end). */
  readonly bytesRead?: number;
  readonly bytes?: number;
}

export type ResultKind = ActionResult['kind'];
