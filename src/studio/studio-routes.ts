import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { loadStudioFiles, studioDirectory, type StudioFile } from './studio-files.js';

/** Hashed asset names never change content: a year, immutable. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';
/** The page names the current assets: always revalidated (cheap with its ETag). */
const PAGE_CACHE = 'no-cache';
/** The app talks to its own origin only; nothing inline, nothing from elsewhere. */
const PAGE_POLICY = "default-src 'self'; img-src 'self' data:; style-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

export interface StudioOptions {
  /** The API prefix, written into the page so the app calls the right paths. */
  prefix: string;
  /** The built studio's folder; found next to the code by default. */
  dir?: string;
}

/**
 * Corral Studio, the admin web app (docs/studio.md): `GET /` and `GET /studio/…` answer its page
 * (deep links), `GET /studio/assets/…` its hashed files, precompressed at build time (brotli or
 * gzip as the client accepts), with long-lived caching. These routes are separate from the API's
 * (`<prefix>/*`): nothing here runs on an API request. Without a built studio, `/` answers 404
 * with a message saying how to build it.
 */
export function registerStudio(app: FastifyInstance, options: StudioOptions): void {
  const dir = options.dir ?? studioDirectory();
  const files = dir === undefined ? new Map<string, StudioFile>() : loadStudioFiles(dir);
  const page = withPrefix(files.get('index.html'), options.prefix);
  if (page === undefined) app.log.warn('Corral Studio is not built (npm run build): / answers 404');

  const sendPage = async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    if (page === undefined) throw new ApiError('ROUTE_NOT_FOUND', 'Corral Studio is not built: run npm run build');
    reply.header('content-security-policy', PAGE_POLICY);
    reply.header('x-frame-options', 'DENY');
    return send(request, reply, page, PAGE_CACHE);
  };
  app.get('/', sendPage);
  app.get('/studio', sendPage);
  app.get('/studio/*', sendPage);
  app.get('/studio/assets/*', async (request, reply) => {
    const name = (request.params as { '*': string })['*'];
    const file = files.get(`assets/${name}`);
    if (file === undefined) throw new ApiError('ROUTE_NOT_FOUND', `no studio asset ${JSON.stringify(name.slice(0, 100))}`);
    return send(request, reply, file, ASSET_CACHE);
  });
}

/** The page with `<meta name="corral-api" content="…">` naming the configured prefix (built with /api). */
function withPrefix(page: StudioFile | undefined, prefix: string): StudioFile | undefined {
  if (page === undefined || prefix === '/api') return page;
  const body = Buffer.from(page.body.toString('utf8').replace('<meta name="corral-api" content="/api">', `<meta name="corral-api" content="${prefix}">`));
  return { type: page.type, body, gzip: gzipSync(body), brotli: brotliCompressSync(body), etag: `"${page.etag.slice(1, -1)}-${Buffer.from(prefix).toString('base64url')}"` };
}

function send(request: FastifyRequest, reply: FastifyReply, file: StudioFile, cache: string): FastifyReply {
  reply.header('cache-control', cache).header('etag', file.etag).header('vary', 'Origin, Accept-Encoding').header('x-content-type-options', 'nosniff');
  reply.type(file.type);
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  const accepts = request.headers['accept-encoding'] ?? '';
  if (file.brotli !== undefined && /\bbr\b/.test(accepts)) return reply.header('content-encoding', 'br').send(file.brotli);
  if (file.gzip !== undefined && /\bgzip\b/.test(accepts)) return reply.header('content-encoding', 'gzip').send(file.gzip);
  return reply.send(file.body);
}
