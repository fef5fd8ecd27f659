import { ERROR_CATALOGUE } from '../errors/catalogue.js';
import { ERROR_SCHEMA } from './common-schemas.js';
import { ref, type JsonSchema } from './json-schema.js';

/** Every status an action of each kind can answer with an error body, besides its success. */
export const READ_ERROR_STATUSES = [400, 403, 404, 405, 408, 413, 415, 431, 500, 503] as const;
export const WRITE_ERROR_STATUSES = [400, 403, 404, 405, 408, 409, 413, 415, 431, 500, 503] as const;
/** The change feed also answers 410 when a resume id is older than the events kept. */
export const FEED_ERROR_STATUSES = [...READ_ERROR_STATUSES, 410].sort((a, b) => a - b);

/** The codes each status can carry, from the one catalogue: the description lists them. */
function codesFor(status: number): string[] {
  return Object.entries(ERROR_CATALOGUE)
    .filter(([, entry]) => entry.status === status)
    .map(([code]) => code);
}

const ALL_ERROR_STATUSES = [...new Set([...WRITE_ERROR_STATUSES, ...FEED_ERROR_STATUSES])].sort((a, b) => a - b);

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
