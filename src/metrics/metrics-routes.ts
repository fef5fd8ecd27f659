import { timingSafeEqual, createHash } from 'node:crypto';
import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import type { MetricsConfig } from '../config/config.js';
import { ApiError } from '../errors/api-error.js';
import { createMetrics, type Metrics, type MetricsSources } from './metrics-registry.js';
import { registerRequestMetrics } from './request-metrics.js';
import { shareWithPrimary } from './cluster-metrics.js';
import { listenForScrapes } from './scrape-listener.js';

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
  // Several workers: the primary serves the sum of theirs on the address (cluster-metrics.ts).
  if (cluster.isWorker) {
    shareWithPrimary(metrics.registry);
    return { close: async () => metrics.registry.clear() };
  }
  const server = await listenForScrapes(config.host, config.port, () => scrape(metrics), (error) => app.log.error({ err: error }, 'reading the metrics failed'));
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
