import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ChangeFeed } from '../changes/change-feed.js';
import type { Database } from '../db/database.js';
import type { SchemaManager } from '../schema/schema-manager.js';

/** Request durations in seconds: a key lookup takes about a millisecond, a large export seconds. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The metrics of one app: a registry of its own (several apps in one process, as in tests, do not
 * mix). With several workers, `aggregator` says how the primary combines a gauge (sum by default).
 */
export interface Metrics {
  readonly registry: Registry;
  readonly requests: Counter<'family' | 'action' | 'status_class'>;
  readonly duration: Histogram<'family' | 'action' | 'status_class'>;
  readonly errors: Counter<'code'>;
}

/** What the gauges read when scraped: the modules' own state, nothing counted on their paths. */
export interface MetricsSources {
  readonly database: Database;
  readonly schema: SchemaManager;
  readonly changes: ChangeFeed;
  /** The webhook deliveries kept, by status (the store's system door: WebhookRows.countsByStatus). */
  readonly webhookDeliveries: () => Promise<ReadonlyMap<string, number>>;
}

/**
 * Every metric Corral serves (docs/operations.md lists them). The gauges are read at scrape
 * time; the request counters are fed by request-metrics.ts. Labels take bounded values only.
 */
export function createMetrics(sources: MetricsSources): Metrics {
  const registry = new Registry();
  // Process memory, CPU, handles, event-loop lag and GC, under prom-client's standard names.
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'corral_http_requests_total',
    help: 'HTTP requests answered, by route family, action and status class',
    labelNames: ['family', 'action', 'status_class'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'corral_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route family, action and status class',
    labelNames: ['family', 'action', 'status_class'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const errors = new Counter({
    name: 'corral_errors_total',
    help: 'Answers with a server or database error, by error code (docs/errors.md)',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  const { database, schema, changes } = sources;
  new Gauge({
    name: 'corral_db_pool_connections',
    help: 'Database connections of this process: open, and idle among them (SQLite: one connection)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const use = database.poolUse?.();
      if (use === undefined) return void this.set({ state: 'open' }, 1);
      this.set({ state: 'open' }, use.total);
      this.set({ state: 'idle' }, use.idle);
    },
  });
  new Gauge({
    name: 'corral_db_pool_waiting',
    help: 'Statements waiting for a free database connection',
    registers: [registry],
    collect() {
      this.set(database.poolUse?.().waiting ?? 0);
    },
  });
  new Gauge({
    name: 'corral_schema_version',
    help: 'Version of the schema this process serves (every collection or field change adds one)',
    registers: [registry],
    aggregator: 'max',
    collect() {
      this.set(schema.snapshot.version);
    },
  });
  new Gauge({
    name: 'corral_change_feed_subscribers',
    help: 'Event streams open on this process',
    registers: [registry],
    collect() {
      this.set(changes.subscriberCount);
    },
  });
  new Gauge({
    name: 'corral_change_feed_lag_events',
    help: 'Events committed that this process has not yet sent to its subscribers (0 without subscribers)',
    registers: [registry],
    aggregator: 'max',
    async collect() {
      if (changes.subscriberCount === 0) return void this.set(0);
      this.set(Math.max(0, (await changes.lastId()) - changes.position));
    },
  });
  new Gauge({
    name: 'corral_webhook_deliveries',
    help: 'Webhook deliveries kept in the database, by status (pending, delivered, failed)',
    labelNames: ['status'] as const,
    registers: [registry],
    // A count of the database's rows: the same in every worker.
    aggregator: 'first',
    async collect() {
      const counts = await sources.webhookDeliveries();
      this.reset();
      for (const status of ['pending', 'delivered', 'failed']) this.set({ status }, 0);
      for (const [status, n] of counts) this.set({ status }, n);
    },
  });
  return { registry, requests, duration, errors };
}
