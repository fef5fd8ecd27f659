import type { Readable } from 'node:stream';
import type { Principal } from './principal.js';
import { ApiError } from '../errors/api-error.js';
import type { ResourcePath } from './resource-path.js';
import type { KeyInput, QueryParams } from './query-params.js';

/** One request, parsed and typed. Path, query and body stay separate. */
export interface ApiRequest {
  readonly id: string;
  readonly method: string;
  readonly path: ResourcePath;
  /** The action, from `:<action>` or the REST mapping. */
  readonly action: string;
  /** Item key(s) from the path or filterByTk (they agree, or KEY_CONFLICT was raised). */
  readonly keys?: KeyInput;
  readonly params: QueryParams;
  readonly body: unknown;
  /** Who the request acts for (absent when authentication is off or the route is public). */
  readonly principal?: Principal;
  /**
   * A multipart/form-data body, not read yet: resolves to its first file part (streamed as it
   * arrives), or undefined when it has none. Absent for any other body.
   */
  readonly upload?: () => Promise<UploadPart | undefined>;
  /** `Range`, `If-Range` and `If-None-Match` of a file download, as sent. */
  readonly download?: { readonly range?: string; readonly ifRange?: string; readonly ifNoneMatch?: string };
}

/** One file part of a multipart body. */
export interface UploadPart {
  /** The part's form field name. */
  readonly field: string;
  /** As the client sent them (not to be trusted: sanitised and sniffed by the upload). */
  readonly filename?: string;
  readonly mimetype?: string;
  readonly stream: Readable;
}

const same = (a: string | number, b: string | number): boolean => String(a) === String(b);

/** The key comes from the path or from filterByTk; both may be given only when they agree. */
export function mergeKeys(pathKey: string | undefined, filterByTk: KeyInput | undefined): KeyInput | undefined {
  if (pathKey === undefined) return filterByTk;
  if (filterByTk === undefined) return pathKey;
  if (typeof filterByTk === 'object' && !Array.isArray(filterByTk)) {
    throw new ApiError('PARAM_INVALID', 'a composite key goes in filterByTk alone, not in the path', { field: 'filterByTk' });
  }
  const agrees = Array.isArray(filterByTk)
    ? filterByTk.length === 1 && same(filterByTk[0]!, pathKey)
    : same(filterByTk, pathKey);
  if (!agrees) {
    throw new ApiError('KEY_CONFLICT', `the path names key ${JSON.stringify(pathKey)} but filterByTk names ${JSON.stringify(filterByTk)}`, {
      field: 'filterByTk',
    });
  }
  return pathKey;
}
