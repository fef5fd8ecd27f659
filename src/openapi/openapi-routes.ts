import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import type { SchemaManager } from '../schema/schema-manager.js';
import type { Access } from '../auth/permissions.js';
import { docsInitScript, SIGN_IN_BOX } from './docs-init.js';
import { OpenApiCache } from './openapi-document.js';
import type { Visibility } from './document-view.js';

/** The reference page's static files, served from the swagger-ui-dist package (no CDN). */
const UI_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

function docsPage(prefix: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Corral API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" type="image/png" href="${prefix}/docs/favicon-32x32.png">
<link rel="stylesheet" href="${prefix}/docs/swagger-ui.css">
</head>
<body>
${SIGN_IN_BOX}
<div id="swagger-ui"></div>
<script src="${prefix}/docs/swagger-ui-bundle.js"></script>
<script src="${prefix}/docs/init.js"></script>
</body>
</html>
`;
}

/** The grants of a request's roles as the document reads them; root sees everything. */
function visibilityOf(access: Access): Visibility | undefined {
  if (access.root) return undefined;
  return {
    fields: (collection, action) => {
      const grant = access.grant(collection, action);
      return grant === undefined ? null : grant.fields;
    },
  };
}

/**
 * `GET <prefix>/openapi.json` (generated from the live schema, one document per schema version)
 * and `GET <prefix>/docs` (Swagger UI for it). Registered before the resource routes.
 * `access` (absent with CORRAL_AUTH=off) authenticates the request and gives its roles' grants:
 * the document needs a token like the data does, and describes only what those grants let the
 * caller see (root: everything; docs/auth.md). The page and its static
 * files hold nothing of the schema and stay open; the page sends the token it was given in
 * its URL fragment (`/api/docs#token=…`, never sent to the server) with its requests.
 */
export function registerOpenApiRoutes(
  app: FastifyInstance,
  schema: SchemaManager,
  prefix: string,
  access?: (request: FastifyRequest) => Promise<Access>,
): void {
  const cache = new OpenApiCache({ prefix });
  app.get(`${prefix}/openapi.json`, async (request, reply) => {
    const visibility = access === undefined ? undefined : visibilityOf(await access(request));
    return reply.type('application/json; charset=utf-8').send(cache.get(schema.snapshot, visibility).text);
  });

  const uiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const files = new Map<string, Buffer>();
  const init = Buffer.from(docsInitScript(prefix));
  const page = docsPage(prefix);
  app.get(`${prefix}/docs`, async (_request, reply) => reply.type('text/html; charset=utf-8').send(page));
  app.get(`${prefix}/docs/init.js`, async (_request, reply) => reply.type('text/javascript; charset=utf-8').send(init));
  app.get<{ Params: { file: string } }>(`${prefix}/docs/:file`, async (request, reply) => {
    const { file } = request.params;
    const type = Object.hasOwn(UI_FILES, file) ? UI_FILES[file] : undefined;
    if (type === undefined) throw new ApiError('ROUTE_NOT_FOUND', `no file ${file} in the reference page`);
    let body = files.get(file);
    if (body === undefined) {
      body = await readFile(join(uiDir, file));
      files.set(file, body);
    }
    return reply.type(type).header('cache-control', 'public, max-age=86400').send(body);
  });
}
