import type { JsonSchema } from './json-schema.js';

/** The name of the one security scheme: `Authorization: Bearer <token>` (docs/auth.md). */
export const BEARER_SCHEME = 'bearerAuth';

/** components.securitySchemes: sign-in tokens and API keys are both HS256 JWTs sent as bearer tokens. */
export function securitySchemes(): Record<string, JsonSchema> {
  return {
    [BEARER_SCHEME]: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'A token from `auth:signIn` or `apiKeys:create`. `X-Role` picks one of the user\'s roles.',
    },
  };
}

/** The document-wide requirement: every operation needs a token unless it says otherwise. */
export const BEARER_REQUIRED: JsonSchema[] = [{ [BEARER_SCHEME]: [] }];

/** Marks an operation as public: no token needed (auth:signIn, app:getInfo, /healthz, /readyz). */
export function PUBLIC(op: JsonSchema): JsonSchema {
  return { ...op, security: [] };
}
