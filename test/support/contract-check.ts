import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { restAction } from '../../src/request/method-rules.js';
import { parseResourcePath } from '../../src/request/resource-path.js';
import { buildOpenApiDocument, type OpenApiDocument } from '../../src/openapi/openapi-document.js';
import { ERROR_SCHEMA } from '../../src/openapi/common-schemas.js';
import type { JsonSchema } from '../../src/openapi/json-schema.js';
import type { SchemaSnapshot } from '../../src/schema/schema-snapshot.js';

/**
 * The contract test: every JSON response the HTTP suite receives through the test helper is
 * validated against the OpenAPI document's schema for its operation and status. The
 * operation comes from method + path through the server's own route grammar. One document
 * per schema snapshot; validators are compiled on first use and shared by every snapshot
 * whose schemas for that answer are the same.
 */
export const CONTRACT_COVERAGE_DIR = join(import.meta.dirname, '..', '..', '.contract-coverage');

/** Responses that are not resources of the document (the document itself, the reference page). */
const UNCHECKED = ['/openapi.json', '/docs'];
/** Requests that match no documented operation: their answer must be an error body. */
export const UNRESOLVED = '(no operation)';

interface Response {
  $ref?: string;
  content?: Record<string, { schema?: JsonSchema }>;
}

interface Operation {
  responses: Record<string, Response>;
}

/** One Ajv for the worker: creating one (meta-schemas, formats) costs far more than a check. */
let sharedAjv: Ajv2020 | undefined;
function ajv(): Ajv2020 {
  if (sharedAjv === undefined) {
    sharedAjv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    addFormats.default(sharedAjv);
  }
  return sharedAjv;
}

/**
 * Compiled validators by the text of a self-contained schema: a new schema version rebuilds
 * the document, but an answer whose schemas did not change reuses its validator.
 */
const validators = new Map<string, ValidateFunction>();

const COMPONENT_REF = /"#\/components\/schemas\/([^"]+)"/g;

/**
 * The response schema with the component schemas it reaches, embedded where its
 * `#/components/schemas/…` references already point (relative to its own root).
 */
function selfContained(schema: JsonSchema, components: Record<string, JsonSchema>): string {
  const needed = new Set<string>();
  const visit = (text: string): void => {
    for (const [, name] of text.matchAll(COMPONENT_REF)) {
      if (name === undefined || needed.has(name)) continue;
      needed.add(name);
      visit(JSON.stringify(components[name] ?? {}));
    }
  };
  visit(JSON.stringify(schema));
  const closure = Object.fromEntries([...needed].sort().map((name) => [name, components[name]]));
  return JSON.stringify({ ...schema, components: { schemas: closure } });
}

function validatorFor(text: string): ValidateFunction {
  let validate = validators.get(text);
  if (validate === undefined) {
    validate = ajv().compile(JSON.parse(text) as JsonSchema);
    validators.set(text, validate);
  }
  return validate;
}

class Checker {
  private readonly operations = new Map<string, Operation>();

  constructor(readonly document: OpenApiDocument) {
    for (const item of Object.values(document.paths)) {
      for (const op of Object.values(item)) this.operations.set(String(op.operationId), op as unknown as Operation);
    }
  }

  /** A response may be a `$ref` into components.responses. */
  private resolve(response: Response | undefined): Response | undefined {
    const name = response?.$ref?.replace('#/components/responses/', '');
    return name === undefined ? response : (this.document.components.responses[name] as Response | undefined);
  }

  has(operationId: string): boolean {
    return this.operations.has(operationId);
  }

  /** The error text, or undefined when the body matches. */
  check(operationId: string, status: number, body: unknown): string | undefined {
    let schema: JsonSchema;
    if (operationId === UNRESOLVED) {
      if (status < 400) return `a request that matches no documented operation answered ${status}`;
      schema = { $ref: `#/components/schemas/${ERROR_SCHEMA}` };
    } else {
      const response = this.resolve(this.operations.get(operationId)!.responses[String(status)]);
      if (response === undefined) return `status ${status} is not documented for ${operationId}`;
      const content = response.content?.['application/json']?.schema;
      if (content === undefined) return `${operationId} ${status} documents no JSON body`;
      schema = content;
    }
    const validate = validatorFor(selfContained(schema, this.document.components.schemas));
    if (validate(body)) return undefined;
    return ajv().errorsText(validate.errors, { dataVar: 'body' });
  }
}

const checkers = new WeakMap<SchemaSnapshot, Checker>();

function checkerFor(snapshot: SchemaSnapshot, prefix: string): Checker {
  let checker = checkers.get(snapshot);
  if (checker === undefined) {
    checker = new Checker(buildOpenApiDocument(snapshot, { prefix }));
    checkers.set(snapshot, checker);
  }
  return checker;
}

/** The operationId a request reaches, as the server routes it; undefined for paths outside the document. */
export function operationOf(method: string, url: string, snapshot: SchemaSnapshot, prefix: string): string | undefined {
  const path = url.split('?', 1)[0]!;
  if (path === '/healthz' || path === '/readyz') return path.slice(1);
  if (!path.startsWith(`${prefix}/`)) return UNRESOLVED;
  if (UNCHECKED.some((suffix) => path === `${prefix}${suffix}` || path.startsWith(`${prefix}${suffix}/`))) return undefined;
  try {
    const route = parseResourcePath(path.slice(prefix.length + 1));
    if (route === undefined) return UNRESOLVED;
    const hasKey = route.key !== undefined;
    const { collection: name, association } = route;
    if (name === 'app' || name === 'collections' || (name === 'fields' && association === undefined)) {
      const action = route.action ?? restAction(method, hasKey);
      return association === undefined ? `${name}.${action}` : `${name}.${association}.${action}`;
    }
    const collection = snapshot.get(name);
    if (association === undefined) return `${name}.${route.action ?? restAction(method, hasKey)}`;
    const relation = collection?.relations.get(association);
    return `${name}.${association}.${route.action ?? restAction(method, hasKey, relation !== undefined && !relation.toMany)}`;
  } catch {
    return UNRESOLVED;
  }
}

const seen = new Set<string>();

function record(operationId: string, status: number): void {
  const key = `${operationId} ${status}`;
  if (seen.has(key)) return;
  seen.add(key);
  mkdirSync(CONTRACT_COVERAGE_DIR, { recursive: true });
  appendFileSync(join(CONTRACT_COVERAGE_DIR, `${process.pid}.txt`), `${key}\n`);
}

/**
 * Throws when a JSON response does not match the document: the test that made the request fails.
 * `snapshot` is the schema after the response (a schema write is described by the new document).
 * `count` false keeps made-up bodies (the checker's own tests) out of the coverage summary.
 */
export function checkContract(method: string, url: string, status: number, contentType: string | undefined, body: unknown, snapshot: SchemaSnapshot, prefix: string, count = true): void {
  if (body === undefined || !(contentType ?? '').startsWith('application/json')) return;
  let operationId = operationOf(method, url, snapshot, prefix);
  if (operationId === undefined) return;
  const checker = checkerFor(snapshot, prefix);
  if (operationId !== UNRESOLVED && !checker.has(operationId)) operationId = UNRESOLVED;
  const problem = checker.check(operationId, status, body);
  if (problem !== undefined) {
    throw new Error(`contract: ${method} ${url} → ${status} does not match the OpenAPI document (${operationId}): ${problem}\n${JSON.stringify(body).slice(0, 600)}`);
  }
  if (count) record(operationId, status);
}
