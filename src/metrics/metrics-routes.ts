import { timingSafeEqual, createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { MetricsConfig } from '../config/config.js';
import { ApiError } from '../errors/api-error.js';
import { createMetrics, type Metrics, type MetricsSources } from './metrics-registry.js';
import { registerRequestMetrics } from './request-metrics.js';

export interface MetricsOptions extends MetricsSources {
  /** CORRAL_METRICS: undefined when off. */
  readonly config: MetricsConfig | undefined;
  readonly prefix: string;
}

/** What buildApp keeps: the separate listener to close (nothing when metrics are off or on the main port). */
export interface MetricsHandle {
  /** The separate listener's address (`host:port` mode), for tests and the start-up line. */
  readonly address?: string;
  close(): Promise<void>;
}

const OFF: MetricsHandle = { close: async () => undefined };

/** A digest, so the comparison takes the same time whatever the lengths (timingSafeEqual needs equal lengths). */
function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The scrape answer: the exposition text of every metric, read now. */
async function scrape(metrics: Metrics): Promise<{ type: string; body: string }> {
  return { type: metrics.registry.contentType, body: await metrics.registry.metrics() };
}

/**
 * `GET /metrics` in the Prometheus text format, off by default (docs/operations.md). `on`: on the
 * main port, behind `Authorization: Bearer <CORRAL_METRICS_TOKEN>` (401 otherwise); `host:port`:
 * on a listener of its own that serves nothing else and asks no token, so it belongs on a
 * private address. Call before the routes are added: the request hooks must reach every route.
 */
export async function registerMetrics(app: FastifyInstance, options: MetricsOptions): Promise<MetricsHandle> {
  const { config } = options;
  if (config === undefined) return OFF;
  const metrics = createMetrics(options);
  registerRequestMetrics(app, metrics, options.prefix);
  if (config.mode === 'token') {
    const expected = digest(`Bearer ${config.token}`);
    app.get('/metrics', async (request, reply) => {
      const given = request.headers.authorization;
      if (given === undefined) throw new ApiError('AUTH_REQUIRED', 'the metrics need Authorization: Bearer <CORRAL_METRICS_TOKEN>');
      if (!timingSafeEqual(digest(given), expected)) throw new ApiError('AUTH_INVALID_TOKEN', 'this is not the metrics token');
      const { type, body } = await scrape(metrics);
      return reply.type(type).header('cache-control', 'no-store').send(body);
    });
    return { close: async () => metrics.registry.clear() };
  }
  const server = await listen(metrics, config.host, config.port, app);
  const bound = server.address();
  const address = typeof bound === 'object' && bound !== null ? `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}` : `${config.host}:${config.port}`;
  app.log.info(`metrics on http://${address}/metrics`);
  return {
    address,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      metrics.registry.clear();
    },
  };
}

/** The separate listener: `GET /metrics` and 404 for anything else. */
async function listen(metrics: Metrics, host: string, port: number, app: FastifyInstance): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: metrics are at /metrics\n');
      return;
    }
    scrape(metrics).then(
      ({ type, body }) => response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(request.method === 'HEAD' ? undefined : body),
      (error: unknown) => {
        app.log.error({ err: error }, 'reading the metrics failed');
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('reading the metrics failed\n');
      },
    );
  });
  // The listener must not keep a process alive that is otherwise done.
  server.unref();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(new Error(`CORRAL_METRICS: cannot listen on ${host}:${port} (${error.message})`)));
    server.listen(port, host, () => resolve());
  });
  return server;
}
