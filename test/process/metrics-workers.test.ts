import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';
import { freePort, freshRequest, killAll, startCorral, workerPids } from './support.js';

afterAll(killAll);

/** The value of one series in an exposition text. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

// Aggregation does not depend on the database: one dialect is enough (the first, as the others tests choose).
describe(`metrics of several workers on a separate address (${DIALECTS[0]})`, () => {
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await killAll();
    await database?.drop();
  });

  it('one scrape of the primary sums the requests every worker answered', async () => {
    database = await createTestDatabase(DIALECTS[0]!);
    const metricsPort = await freePort();
    const proc = await startCorral({
      env: { DATABASE_URL: database.url, CORRAL_WORKERS: '2', CORRAL_METRICS: `127.0.0.1:${metricsPort}` },
      timeoutMs: 30_000,
    });
    const workers = await workerPids(proc, 2, 20_000);
    expect(workers).toHaveLength(2);
    // Fresh connections spread over both workers; workerPids sent some /healthz too: count from the scrape before.
    const read = async (): Promise<string> => {
      const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(response.status).toBe(200);
      return response.text();
    };
    const series = 'corral_http_requests_total{family="health",action="other",status_class="2xx"}';
    const before = sample(await read(), series) ?? 0;
    const answered = new Set<string>();
    for (let i = 0; i < 20; i++) answered.add((await freshRequest(proc, 'GET', '/healthz')).worker);
    expect(answered.size).toBe(2);
    const text = await read();
    expect(sample(text, series)).toBe(before + 20);
    // A database count is the same in every worker: taken once, not summed.
    expect(sample(text, 'corral_webhook_deliveries{status="failed"}')).toBe(0);
    await proc.stop();
  }, 90_000);
});
