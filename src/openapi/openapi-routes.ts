import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import type { SchemaManager } from '../schema/schema-manager.js';
import { OpenApiCache, type Visibility } from './openapi-document.js';

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
<div id="swagger-ui"></div>
<script src="${prefix}/docs/swagger-ui-bundle.js"></script>
<script src="${prefix}/docs/init.js"></script>
</body>
</html>
`;
}

/**
 * `GET <prefix>/openapi.json` (generated from the live schema, one document per schema version)
 * and `GET <prefix>/docs` (Swagger UI for it). Registered before the resource routes; both
 * are read-only and will stay open when authentication arrives (the document then narrows
 * to what the caller's role may use, through `visibility`).
 */
export function registerOpenApiRoutes(app: FastifyInstance, schema: SchemaManager, prefix: string, visibility?: Visibility): void {
  const cache = new OpenApiCache({ prefix, ...(visibility === undefined ? {} : { visibility }) });
  app.get(`${prefix}/openapi.json`, async (_request, reply) => reply.type('application/json; charset=utf-8').send(cache.get(schema.snapshot).text));

  const uiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const files = new Map<string, Buffer>();
  // validatorUrl null: Swagger UI would otherwise send the document to an outside validator.
  const init = Buffer.from(
    `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(`${prefix}/openapi.json`)}, dom_id: '#swagger-ui', deepLinking: true, displayOperationId: true, validatorUrl: null, docExpansion: 'list' });\n`,
  );
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
