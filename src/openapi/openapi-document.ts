import type { Collection, Relation } from '../schema/collection.js';
import type { SchemaSnapshot } from '../schema/schema-snapshot.js';
import { CORRAL_VERSION } from '../version.js';
import { actionMethod, associationActions, COLLECTION_ACTIONS, operation, type OperationTarget } from './collection-operations.js';
import { createSchemaName, keySchema, keySchemaName, rowSchema, updateSchemaName, writeSchema } from './collection-schemas.js';
import { commonSchemas } from './common-schemas.js';
import { ref, type JsonSchema } from './json-schema.js';
import { DocumentView, EVERYTHING, visibilityKey, type Visibility } from './document-view.js';
import { parameterComponents } from './parameters.js';
import { errorResponseComponents, errorResponses, UPLOAD_ERROR_STATUSES } from './responses.js';
import { serviceOperations } from './service-operations.js';
import { apiKeyCreated, authOperations, roleResourceOperations } from './auth-operations.js';
import { BEARER_REQUIRED, securitySchemes } from './security.js';
import { WEBHOOKS } from '../webhooks/webhook-definitions.js';
import { ATTACHMENTS } from '../schema/attachment-field.js';
import { ATTACHMENT_FIELD_PARAMETER, contentOperation, UPLOAD_BODY, uploadPaths } from './attachment-operations.js';

export type OpenApiDocument = JsonSchema & { paths: Record<string, Record<string, JsonSchema>>; components: { schemas: Record<string, JsonSchema>; parameters: Record<string, JsonSchema>; responses: Record<string, JsonSchema>; securitySchemes: Record<string, JsonSchema> } };

/** The system collections of authentication (src/auth/system-collections.ts). */
const USERS = 'users';
const API_KEYS = 'apiKeys';
const ROLES = 'roles';

export interface DocumentOptions {
  prefix: string;
  /** What the caller may see; everything when absent (root, auth off, the contract check). */
  visibility?: Visibility;
}

const OPENAPI_VERSION = '3.1.0';

function addOperation(paths: OpenApiDocument['paths'], path: string, method: string, op: JsonSchema): void {
  (paths[path] ??= {})[method] = op;
}

function collectionTarget(collection: Collection): OperationTarget {
  return { collection, operationId: '', label: collection.name, tag: collection.name, pathParameters: [], toOne: false };
}

function associationTarget(source: Collection, relation: Relation): OperationTarget {
  return {
    collection: relation.target,
    operationId: '',
    label: `${source.name}.${relation.name}`,
    tag: source.name,
    pathParameters: [{ name: 'sourceKey', in: 'path', required: true, description: `key of the ${source.name} row`, schema: ref(keySchemaName(source.name)) }],
    toOne: !relation.toMany,
  };
}

/**
 * The OpenAPI 3.1 document of one schema snapshot (API.md §10), as one caller may see it: the
 * collections its roles grant some action on, the operations of the granted actions, and in
 * schemas only the fields of the grant (rows: `view`; write bodies: `create` / `update`).
 * Pure: same snapshot and grants, same document.
 */
export function buildOpenApiDocument(snapshot: SchemaSnapshot, options: DocumentOptions): OpenApiDocument {
  const { prefix } = options;
  const view = new DocumentView(options.visibility ?? EVERYTHING);
  const paths: OpenApiDocument['paths'] = {};
  const schemas: Record<string, JsonSchema> = commonSchemas();
  const tags: JsonSchema[] = [];
  for (const { path, method, op } of serviceOperations(prefix)) addOperation(paths, path, method, op);
  const users = snapshot.get(USERS);
  if (users !== undefined) for (const { path, method, op } of authOperations(prefix, users)) addOperation(paths, path, method, op);
  if (snapshot.get(ROLES) !== undefined) for (const { path, method, op } of roleResourceOperations(prefix)) addOperation(paths, path, method, op);

  // `webhooks` is described by serviceOperations (its secret is write-only, kept beside the delivery state).
  const collections = [...snapshot.collections.values()].filter((collection) => collection.name !== WEBHOOKS && view.collection(collection.name)).sort((a, b) => a.name.localeCompare(b.name));
  // A row shows the view grant's fields (the key alone without one) and the associations whose targets may be read.
  const readable = (relation: Relation): boolean => view.granted(relation.target.name, 'view');
  for (const collection of collections) {
    schemas[collection.name] = rowSchema(collection, view.granted(collection.name, 'view') ? view.shown(collection.name, 'view') : () => false, readable);
    schemas[keySchemaName(collection.name)] = keySchema(collection);
  }
  // auth:check answers the caller's own users row whole, whatever its grants on users.
  if (users !== undefined && schemas[users.name] === undefined) schemas[users.name] = rowSchema(users, undefined, readable);
  // A nested object in a write is a create or update of the target: the schemas its grants allow.
  const nested = (relation: Relation): string[] | undefined => {
    if (!view.collection(relation.target.name)) return undefined;
    const target = relation.target.name;
    return [...(view.granted(target, 'update') ? [updateSchemaName(target)] : []), ...(view.granted(target, 'create') && !view.granted(target, 'update') ? [createSchemaName(target)] : [])];
  };
  for (const collection of collections) {
    const { name } = collection;
    tags.push({ name, description: collection.def.description ?? collection.def.title ?? `collection ${name}` });
    if (view.granted(name, 'create')) schemas[createSchemaName(name)] = writeSchema(collection, 'create', view.shown(name, 'create'), nested);
    if (view.granted(name, 'update')) schemas[updateSchemaName(name)] = writeSchema(collection, 'update', view.shown(name, 'update'), nested);
    for (const action of COLLECTION_ACTIONS) {
      if (!view.action(name, action)) continue;
      const target = { ...collectionTarget(collection), operationId: `${name}.${action}` };
      addOperation(paths, `${prefix}/${name}:${action}`, actionMethod(action), operation(target, action));
    }
    for (const relation of collection.relations.values()) {
      for (const action of associationActions(relation)) {
        if (!view.action(name, action, relation)) continue;
        const target = { ...associationTarget(collection, relation), operationId: `${name}.${relation.name}.${action}` };
        addOperation(paths, `${prefix}/${name}/{sourceKey}/${relation.name}:${action}`, actionMethod(action), operation(target, action));
      }
    }
  }

  // Uploads take multipart bodies; the attachments' bytes download from their own path (docs/files.md).
  for (const { path, withField } of uploadPaths(prefix, collections)) {
    const create = paths[path]?.post;
    if (create === undefined) continue;
    create.requestBody = UPLOAD_BODY;
    create.responses = { ...(create.responses as Record<string, JsonSchema>), ...errorResponses(UPLOAD_ERROR_STATUSES) };
    create.summary = `Upload a file${withField ? '' : ' and link it to the row'} (multipart/form-data)`;
    if (withField) create.parameters = [...(create.parameters as JsonSchema[]), ATTACHMENT_FIELD_PARAMETER];
  }
  const attachments = collections.find((collection) => collection.name === ATTACHMENTS);
  if (attachments !== undefined) addOperation(paths, `${prefix}/${ATTACHMENTS}/{id}/content`, 'get', contentOperation(attachments));

  const apiKeysCreate = paths[`${prefix}/${API_KEYS}:create`]?.post;
  if (apiKeysCreate !== undefined) {
    const responses = apiKeysCreate.responses as Record<string, JsonSchema>;
    apiKeysCreate.responses = { ...responses, 201: apiKeyCreated() };
  }

  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Corral',
      version: CORRAL_VERSION,
      description:
        `Generated from the live schema (version ${snapshot.version}). Action-style routes are described; ` +
        'the REST forms (`GET /api/posts/1`, `PUT /api/posts/1`, …) and the other methods an action accepts reach the same operations. ' +
        'Every error answers the one `corral.Error` body. Every operation needs `Authorization: Bearer <token>` ' +
        '(from `auth:signIn` or an API key) unless it lists no security requirement.',
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    tags: [{ name: 'service' }, { name: 'auth' }, { name: 'schema' }, { name: 'events', description: 'the change feed and webhooks' }, ...tags],
    security: BEARER_REQUIRED,
    paths,
    components: { schemas, parameters: parameterComponents(), responses: errorResponseComponents(), securitySchemes: securitySchemes() },
  };
}

/** Documents kept per schema version, one per distinct set of grants. */
const MAX_CACHED_DOCUMENTS = 64;

/**
 * One document per (schema version, grants): rebuilt only when the snapshot changes (on any
 * node, within the poll interval). The grants stand for the role set (document-view.ts
 * visibilityKey), never the user: filters, the only per-user part of a role, are not described.
 */
export class OpenApiCache {
  private snapshot?: SchemaSnapshot;
  private readonly documents = new Map<string, { document: OpenApiDocument; text: string }>();

  constructor(private readonly options: DocumentOptions) {}

  get(snapshot: SchemaSnapshot, visibility?: Visibility): { document: OpenApiDocument; text: string } {
    if (this.snapshot !== snapshot) {
      this.snapshot = snapshot;
      this.documents.clear();
    }
    const key = visibility === undefined ? '' : `\u0001${visibilityKey(snapshot, visibility)}`;
    const cached = this.documents.get(key);
    if (cached !== undefined) return cached;
    const document = buildOpenApiDocument(snapshot, visibility === undefined ? this.options : { ...this.options, visibility });
    const entry = { document, text: JSON.stringify(document) };
    if (this.documents.size >= MAX_CACHED_DOCUMENTS) this.documents.clear();
    this.documents.set(key, entry);
    return entry;
  }
}
