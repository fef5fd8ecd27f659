import { AggregatorRegistry, type Registry } from 'prom-client';
import type { MetricsConfig } from '../config/config.js';
import { listenForScrapes } from './scrape-listener.js';

/**
 * In a worker (CORRAL_WORKERS > 1, metrics on a separate address): answers the primary's
 * requests for this worker's metrics over the cluster channel (prom-client's AggregatorRegistry).
 */
export function shareWithPrimary(registry: Registry): void {
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one installs the worker's listener for the primary's requests.
  new AggregatorRegistry();
}

/**
 * In the primary: serves `GET /metrics` on the separate address with every worker's metrics
 * combined (counters and histograms summed; each gauge as its `aggregator` says), so one scrape
 * sees the whole node. Returns the listener's close.
 */
export async function serveClusterMetrics(config: Extract<MetricsConfig, { mode: 'address' }>, onError: (error: unknown) => void): Promise<() => void> {
  const aggregator = new AggregatorRegistry();
  const server = await listenForScrapes(config.host, config.port, async () => ({ type: aggregator.contentType, body: await aggregator.clusterMetrics() }), onError);
  return () => server.close();
}
