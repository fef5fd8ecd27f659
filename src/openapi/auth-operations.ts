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

/** `apiKeys:create` answers the key's id and its token (shown once), not the stored row. */
export function apiKeyCreated(): JsonSchema {
  return jsonResponse(
    '`{data: {id, token}}`: the token is shown only here; the key stores its digest',
    dataEnvelope({ type: 'object', required: ['id', 'token'], additionalProperties: false, properties: { id: { type: 'integer' }, token: TOKEN } }),
    { Location: { description: 'URL of the created key', schema: { type: 'string' } } },
  );
}
