import type { Collection, Relation } from '../schema/collection.js';
import type { SchemaSnapshot } from '../schema/schema-snapshot.js';
import { CORRAL_VERSION } from '../version.js';
import { actionMethod, associationActions, COLLECTION_ACTIONS, operation, type DocumentedAction, type OperationTarget } from './collection-operations.js';
import { createSchemaName, keySchema, keySchemaName, rowSchema, updateSchemaName, writeSchema } from './collection-schemas.js';
import { commonSchemas } from './common-schemas.js';
import { ref, type JsonSchema } from './json-schema.js';
import { parameterComponents } from './parameters.js';
import { errorResponseComponents } from './responses.js';
import { serviceOperations } from './service-operations.js';
import { apiKeyCreated, authOperations, roleResourceOperations } from './auth-operations.js';
import { BEARER_REQUIRED, securitySchemes } from './security.js';

export type OpenApiDocument = JsonSchema & { paths: Record<string, Record<string, JsonSchema>>; components: { schemas: Record<string, JsonSchema>; parameters: Record<string, JsonSchema>; responses: Record<string, JsonSchema>; securitySchemes: Record<string, JsonSchema> } };

/** The system collections of authentication (src/auth/system-collections.ts). */
const USERS = 'users';
const API_KEYS = 'apiKeys';
const ROLES = 'roles';

/**
 * Which collections and actions a caller may see. The server passes none today: the document
 * needs a token and describes everything (docs/auth.md); a role's grants could plug in here.
 */
export interface Visibility {
  collection(name: string): boolean;
  action(collection: string, action: DocumentedAction, association?: string): boolean;
}

export interface DocumentOptions {
  prefix: string;
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

/** The OpenAPI 3.1 document of one schema snapshot (API.md §10). Pure: same snapshot, same document. */
export function buildOpenApiDocument(snapshot: SchemaSnapshot, options: DocumentOptions): OpenApiDocument {
  const { prefix, visibility } = options;
  const visibleCollection = (name: string): boolean => visibility?.collection(name) ?? true;
  const visibleAction = (collection: string, action: DocumentedAction, association?: string): boolean => visibility?.action(collection, action, association) ?? true;
  const paths: OpenApiDocument['paths'] = {};
  const schemas: Record<string, JsonSchema> = commonSchemas();
  const tags: JsonSchema[] = [];
  for (const { path, method, op } of serviceOperations(prefix)) addOperation(paths, path, method, op);
  const users = snapshot.get(USERS);
  if (users !== undefined) for (const { path, method, op } of authOperations(prefix, users)) addOperation(paths, path, method, op);
  if (snapshot.get(ROLES) !== undefined) for (const { path, method, op } of roleResourceOperations(prefix)) addOperation(paths, path, method, op);

  const collections = [...snapshot.collections.values()].sort((a, b) => a.name.localeCompare(b.name));
  // Rows embed their associations' targets: every target reachable from a visible collection is described.
  for (const collection of collections) {
    schemas[collection.name] = rowSchema(collection);
    schemas[keySchemaName(collection.name)] = keySchema(collection);
  }
  for (const collection of collections) {
    if (!visibleCollection(collection.name)) continue;
    tags.push({ name: collection.name, description: collection.def.description ?? collection.def.title ?? `collection ${collection.name}` });
    schemas[createSchemaName(collection.name)] = writeSchema(collection, 'create');
    schemas[updateSchemaName(collection.name)] = writeSchema(collection, 'update');
    for (const action of COLLECTION_ACTIONS) {
      if (!visibleAction(collection.name, action)) continue;
      const target = { ...collectionTarget(collection), operationId: `${collection.name}.${action}` };
      addOperation(paths, `${prefix}/${collection.name}:${action}`, actionMethod(action), operation(target, action));
    }
    for (const relation of collection.relations.values()) {
      if (!visibleCollection(relation.target.name)) continue;
      schemas[createSchemaName(relation.target.name)] ??= writeSchema(relation.target, 'create');
      schemas[updateSchemaName(relation.target.name)] ??= writeSchema(relation.target, 'update');
      for (const action of associationActions(relation)) {
        if (!visibleAction(collection.name, action, relation.name)) continue;
        const target = { ...associationTarget(collection, relation), operationId: `${collection.name}.${relation.name}.${action}` };
        addOperation(paths, `${prefix}/${collection.name}/{sourceKey}/${relation.name}:${action}`, actionMethod(action), operation(target, action));
      }
    }
  }

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

/** One document per schema version: rebuilt only when the snapshot changes (on any node, within the poll interval). */
export class OpenApiCache {
  private cached?: { version: number; snapshot: SchemaSnapshot; document: OpenApiDocument; text: string };

  constructor(private readonly options: DocumentOptions) {}

  get(snapshot: SchemaSnapshot): { document: OpenApiDocument; text: string } {
    const cached = this.cached;
    if (cached !== undefined && cached.snapshot === snapshot) return cached;
    const document = buildOpenApiDocument(snapshot, this.options);
    this.cached = { version: snapshot.version, snapshot, document, text: JSON.stringify(document) };
    return this.cached;
  }
}
