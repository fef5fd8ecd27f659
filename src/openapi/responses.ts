import { ERROR_CATALOGUE } from '../errors/catalogue.js';
import { ERROR_SCHEMA } from './common-schemas.js';
import { ref, type JsonSchema } from './json-schema.js';

/** Every status an action of each kind can answer with an error body, besides its success. */
export const READ_ERROR_STATUSES = [400, 401, 403, 404, 405, 408, 413, 415, 431, 500, 503] as const;
export const WRITE_ERROR_STATUSES = [400, 401, 403, 404, 405, 408, 409, 413, 415, 431, 500, 503] as const;
/** A public operation (no token needed) never answers 401 AUTH_REQUIRED. */
export const PUBLIC_READ_ERROR_STATUSES = READ_ERROR_STATUSES.filter((status) => status !== 401);
/** `auth:signIn`: public, 401 for bad credentials, 429 when failed sign-ins are rate limited. */
export const SIGN_IN_ERROR_STATUSES = [...WRITE_ERROR_STATUSES, 429].sort((a, b) => a - b);
/** The change feed also answers 410 when a resume id is older than the events kept. */
export const FEED_ERROR_STATUSES = [...READ_ERROR_STATUSES, 410].sort((a, b) => a - b);

/** The codes each status can carry, from the one catalogue: the description lists them. */
function codesFor(status: number): string[] {
  return Object.entries(ERROR_CATALOGUE)
    .filter(([, entry]) => entry.status === status)
    .map(([code]) => code);
}

/** update and destroy take If-Match: 412 PRECONDITION_FAILED when the record's tag differs. */
export const CONDITIONAL_WRITE_ERROR_STATUSES = [...WRITE_ERROR_STATUSES, 412].sort((a, b) => a - b);
/** A file download also answers 416 for a range past the end, and 502 when the s3 storage refuses. */
export const DOWNLOAD_ERROR_STATUSES = [...READ_ERROR_STATUSES, 416, 502].sort((a, b) => a - b);
/** An upload answers 502 when the s3 storage refuses the bytes. */
export const UPLOAD_ERROR_STATUSES = [...WRITE_ERROR_STATUSES, 502].sort((a, b) => a - b);

const ALL_ERROR_STATUSES = [...new Set([...CONDITIONAL_WRITE_ERROR_STATUSES, ...FEED_ERROR_STATUSES, ...SIGN_IN_ERROR_STATUSES, ...DOWNLOAD_ERROR_STATUSES, ...UPLOAD_ERROR_STATUSES])].sort((a, b) => a - b);

/** components.responses name of an error status; a dot keeps it apart from anything else. */
const errorResponseName = (status: number): string => `corral.Error${status}`;

/** The error answers, once in components.responses: operations refer to them (keeps the document small). */
export function errorResponseComponents(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const status of ALL_ERROR_STATUSES) {
    out[errorResponseName(status)] = {
      description: `Error: ${codesFor(status).join(', ')}`,
      ...(status === 405 ? { headers: { Allow: { description: 'the methods this action accepts', schema: { type: 'string' } } } } : {}),
      content: { 'application/json': { schema: ref(ERROR_SCHEMA) } },
    };
  }
  return out;
}

export function errorResponses(statuses: readonly number[]): Record<string, JsonSchema> {
  return Object.fromEntries(statuses.map((status) => [String(status), { $ref: `#/components/responses/${errorResponseName(status)}` }]));
}

export function jsonResponse(description: string, schema: JsonSchema, headers?: Record<string, JsonSchema>): JsonSchema {
  return { description, ...(headers === undefined ? {} : { headers }), content: { 'application/json': { schema } } };
}

/** `{data: …}` and nothing else. */
export function dataEnvelope(data: JsonSchema): JsonSchema {
  return { type: 'object', required: ['data'], additionalProperties: false, properties: { data } };
}

export const LOCATION_HEADER: Record<string, JsonSchema> = {
  Location: { description: 'URL of the created item', schema: { type: 'string' } },
};

/** The headers of a tagged GET answer (docs/api.md, "Conditional requests"). */
export const ETAG_HEADERS: Record<string, JsonSchema> = {
  ETag: { description: 'strong entity tag of the body bytes; send it as If-None-Match (304) or, for one record, If-Match on update and destroy', schema: { type: 'string' } },
  'Cache-Control': { description: '`private, no-cache`: the answer depends on the token', schema: { type: 'string' } },
};

/** 304: If-None-Match named the answer's tag; no body. */
export const NOT_MODIFIED: JsonSchema = { description: 'Not modified: If-None-Match named the current tag (no body)', headers: ETAG_HEADERS };

export const IF_NONE_MATCH: JsonSchema = {
  name: 'If-None-Match', in: 'header', required: false,
  description: '`*` or entity tags (weak comparison): 304 with no body when one is the answer\'s tag',
  schema: { type: 'string' },
};

export const IF_MATCH: JsonSchema = {
  name: 'If-Match', in: 'header', required: false,
  description: 'one record only: `*` (exists) or entity tags from its GET (strong comparison); else 412 PRECONDITION_FAILED, nothing written. With a filter or a key list: 400 PRECONDITION_NOT_SINGLE',
  schema: { type: 'string' },
};
