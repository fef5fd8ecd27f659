import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ActionName } from '../actions/action-registry.js';
import { restAction } from '../request/method-rules.js';
import { parseResourcePath } from '../request/resource-path.js';
import type { Metrics } from './metrics-registry.js';

/** Which part of Corral answered: a closed set, so the label never holds a path. */
export type RouteFamily = 'api' | 'openapi' | 'studio' | 'health' | 'metrics' | 'other';

/** The action label's values: every action, then `other` (a new action fails to compile until listed). */
const ACTIONS: Record<ActionName, true> = {
  list: true,
  listMeta: true,
  get: true,
  count: true,
  getInfo: true,
  export: true,
  import: true,
  signIn: true,
  check: true,
  signOut: true,
  create: true,
  update: true,
  destroy: true,
  add: true,
  set: true,
  remove: true,
  toggle: true,
  subscribe: true,
  firstOrCreate: true,
  updateOrCreate: true,
  query: true,
  move: true,
  retry: true,
  setIndexes: true,
};

/** Refusals that come from the database itself (a statement that failed), counted with the 5xx answers. */
const DATABASE_CODES: ReadonlySet<string> = new Set(['WRITE_CONFLICT', 'SCHEMA_CHANGED', 'UNIQUE_VIOLATION']);

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

/** The first error code of an error answer's body (`{"errors":[{"code":"…"`). */
const ERROR_CODE = /"code":"([A-Z0-9_]{1,64})"/;

/** The family of a route pattern (Fastify's `routeOptions.url`; none for the not-found handler). */
export function routeFamily(route: string | undefined, prefix: string): RouteFamily {
  if (route === undefined) return 'other';
  if (route === '/metrics') return 'metrics';
  if (route === '/healthz' || route === '/readyz') return 'health';
  if (route === '/' || route === '/studio' || route.startsWith('/studio/')) return 'studio';
  if (route === `${prefix}/openapi.json` || route === `${prefix}/docs` || route.startsWith(`${prefix}/docs/`)) return 'openapi';
  if (route === `${prefix}/*`) return 'api';
  return 'other';
}

/** The action an API request named (or its method implied, REST style), or `other`. */
export function actionLabel(method: string, url: string, prefix: string): string {
  const query = url.indexOf('?');
  const path = parseResourcePath(url.slice(prefix.length + 1, query === -1 ? url.length : query));
  if (path === undefined) return 'other';
  let name: string;
  try {
    name = path.action ?? restAction(method, path.key !== undefined);
  } catch {
    return 'other';
  }
  return Object.hasOwn(ACTIONS, name) ? name : 'other';
}

/**
 * Counts and times every answered request by family, action and status class, and counts
 * server and database errors by their code. Registered before the routes: nothing of it runs
 * when metrics are off.
 */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics, prefix: string): void {
  const families = new Map<string | undefined, RouteFamily>();
  app.addHook('onSend', (_request, reply, payload, done) => {
    // 5xx answers and the statements the database refused (409 WRITE_CONFLICT and the like).
    if ((reply.statusCode >= 500 || reply.statusCode === 409) && typeof payload === 'string') {
      const code = ERROR_CODE.exec(payload)?.[1];
      if (code !== undefined && (reply.statusCode >= 500 || DATABASE_CODES.has(code))) metrics.errors.inc({ code });
    }
    done(null, payload);
  });
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    const route = request.routeOptions.url;
    let family = families.get(route);
    if (family === undefined) {
      family = routeFamily(route, prefix);
      families.set(route, family);
    }
    const labels = {
      family,
      action: family === 'api' ? actionLabel(request.method, request.url, prefix) : 'other',
      status_class: STATUS_CLASSES[Math.floor(reply.statusCode / 100) - 1] ?? 'other',
    };
    metrics.requests.inc(labels);
    metrics.duration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}
