import type { Collection } from '../schema/collection.js';
import { ref, type JsonSchema } from './json-schema.js';
import { rowSchemaName } from './collection-schemas.js';
import { dataEnvelope, errorResponses, jsonResponse, READ_ERROR_STATUSES, SIGN_IN_ERROR_STATUSES, WRITE_ERROR_STATUSES } from './responses.js';
import { PUBLIC } from './security.js';

interface AuthOp {
  path: string;
  method: 'get' | 'post';
  op: JsonSchema;
}

const TOKEN: JsonSchema = { type: 'string', description: 'an HS256 JWT: send it as `Authorization: Bearer <token>`' };

/** `auth:signIn`, `auth:check`, `auth:signOut` (API.md §9), described against the users row schema. */
export function authOperations(prefix: string, users: Collection): AuthOp[] {
  const user = ref(rowSchemaName(users.name));
  const checked: JsonSchema = { allOf: [user], description: 'the signed-in user; `roles` are the roles in effect (X-Role narrows them)' };
  return [
    {
      path: `${prefix}/auth:signIn`,
      method: 'post',
      op: PUBLIC({
        operationId: 'auth.signIn',
        tags: ['auth'],
        summary: 'Sign in with an email or username and a password; answers a token (X-Authenticator: basic is accepted)',
        parameters: [],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { type: 'object', required: ['account', 'password'], properties: { account: { type: 'string', minLength: 1 }, password: { type: 'string', writeOnly: true } } },
            },
          },
        },
        responses: {
          200: jsonResponse('`{data: {user, token}}`', dataEnvelope({ type: 'object', required: ['user', 'token'], additionalProperties: false, properties: { user, token: TOKEN } })),
          ...errorResponses(SIGN_IN_ERROR_STATUSES),
        },
      }),
    },
    {
      path: `${prefix}/auth:check`,
      method: 'get',
      op: {
        operationId: 'auth.check',
        tags: ['auth'],
        summary: 'The signed-in user and the roles in effect (POST works too)',
        parameters: [],
        responses: { 200: jsonResponse('`{data: user}`', dataEnvelope(checked)), ...errorResponses(READ_ERROR_STATUSES) },
      },
    },
    {
      path: `${prefix}/auth:signOut`,
      method: 'post',
      op: {
        operationId: 'auth.signOut',
        tags: ['auth'],
        summary: 'Revoke the token of this request, on every node',
        parameters: [],
        responses: { 200: jsonResponse('`{data: null}`', dataEnvelope({ type: 'null' })), ...errorResponses(WRITE_ERROR_STATUSES) },
      },
    },
  ];
}

/** One entry of `roles/<role>/resources`: a role's grants on one collection. */
const RESOURCE: JsonSchema = {
  type: 'object',
  required: ['name', 'actions'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', description: 'the collection' },
    actions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', enum: ['view', 'create', 'update', 'destroy'] },
          fields: { type: 'array', items: { type: 'string' }, description: 'the fields this action may read or write (all when absent)' },
          filter: { type: 'object', description: 'row scope in the filter language; may use {{$user.id}} and {{$user.<field>}}' },
          scope: { type: 'string', enum: ['own'], description: 'own: only rows whose createdById is the caller (sent as "own" or {"key": "own"}); absent for every row' },
          scopeId: { type: 'integer', description: 'a rolesResourcesScopes row (sent as scopeId or scope: {id}): its filter, ANDed with filter, bounds the rows' },
        },
      },
    },
  },
};

/** `roles/{role}/resources:<action>` (key = collection name), served by a dedicated action table. */
export function roleResourceOperations(prefix: string): AuthOp[] {
  const base = `${prefix}/roles/{sourceKey}/resources`;
  const role: JsonSchema = { name: 'sourceKey', in: 'path', required: true, description: 'the role name', schema: { type: 'string' } };
  const key: JsonSchema = { name: 'filterByTk', in: 'query', description: 'the collection name (or put it in the path: …:get/<collection>)', schema: { type: 'string' } };
  const body = (schema: JsonSchema): JsonSchema => ({ required: true, content: { 'application/json': { schema } } });
  const reads = errorResponses(READ_ERROR_STATUSES);
  const writes = errorResponses(WRITE_ERROR_STATUSES);
  const item = dataEnvelope(RESOURCE);
  const op = (action: string, summary: string, parameters: JsonSchema[], responses: Record<string, JsonSchema>, requestBody?: JsonSchema): JsonSchema => ({
    operationId: `roles.resources.${action}`,
    tags: ['roles'],
    summary,
    parameters,
    ...(requestBody === undefined ? {} : { requestBody }),
    responses,
  });
  return [
    { path: `${base}:list`, method: 'get', op: op('list', "A role's grants, one entry per collection", [role], { 200: jsonResponse('`{data: [resources]}`', dataEnvelope({ type: 'array', items: RESOURCE })), ...reads }) },
    { path: `${base}:get`, method: 'get', op: op('get', "A role's grants on one collection", [role, key], { 200: jsonResponse('`{data}`', item), ...reads }) },
    { path: `${base}:create`, method: 'post', op: op('create', 'Grant a role actions on one collection', [role], { 201: jsonResponse('`{data}`', item, { Location: { description: 'URL of the resource', schema: { type: 'string' } } }), ...writes }, body(RESOURCE)) },
    { path: `${base}:update`, method: 'post', op: op('update', "Replace a role's grants on one collection", [role, key], { 200: jsonResponse('`{data}`', item), ...writes }, body({ ...RESOURCE, required: ['actions'] })) },
    { path: `${base}:destroy`, method: 'post', op: op('destroy', "Remove a role's grants on one collection (the strategy applies again)", [role, key], { 200: jsonResponse('`{data: n}`', dataEnvelope({ type: 'integer', minimum: 0 })), ...writes }) },
  ];
}

/** `apiKeys:create` answers the key's id and its token (shown once), not the stored row. */
export function apiKeyCreated(): JsonSchema {
  return jsonResponse(
    '`{data: {id, token}}`: the token is shown only here; the key stores its digest',
    dataEnvelope({ type: 'object', required: ['id', 'token'], additionalProperties: false, properties: { id: { type: 'integer' }, token: TOKEN } }),
    { Location: { description: 'URL of the created key', schema: { type: 'string' } } },
  );
}
