import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp } from '../support/test-app.js';

const TOKEN = 'metrics-token-for-tests-0123456789';

/** A port nothing listens on now (taken from the kernel, then let go). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

/** The label sets of one metric in an exposition text: each label's distinct values. */
function labelValues(text: string, metric: string): Map<string, Set<string>> {
  const values = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    for (const [, name, value] of line.matchAll(/(\w+)="([^"]*)"/g)) {
      if (!values.has(name!)) values.set(name!, new Set());
      values.get(name!)!.add(value!);
    }
  }
  return values;
}

/** The value of a metric's sample with exactly these labels (or none). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

for (const dialect of DIALECTS) {
  describe(`metrics on the main port on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, { metrics: { mode: 'token', token: TOKEN } });
    const scrape = (authorization?: string) =>
      ctx.built.app.inject({ method: 'GET', url: '/metrics', headers: authorization === undefined ? {} : { authorization } });

    it('asks for the metrics token: 401 AUTH_REQUIRED without it, AUTH_INVALID_TOKEN with another', async () => {
      const none = await scrape();
      expect(none.statusCode).toBe(401);
      expect(none.json().errors[0].code).toBe('AUTH_REQUIRED');
      const wrong = await scrape('Bearer not-the-metrics-token');
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json().errors[0].code).toBe('AUTH_INVALID_TOKEN');
      // A user's token is not the metrics token.
      const user = await scrape((await ctx.api.authHeaders()).authorization);
      expect(user.statusCode).toBe(401);
    });

    it('serves the Prometheus text format with every documented metric', async () => {
      await ctx.api.get('/api/app:getInfo');
      const reply = await scrape(`Bearer ${TOKEN}`);
      expect(reply.statusCode).toBe(200);
      expect(reply.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      for (const name of [
        'corral_http_requests_total',
        'corral_http_request_duration_seconds_bucket',
        'corral_db_pool_connections',
        'corral_db_pool_waiting',
        'corral_schema_version',
        'corral_change_feed_subscribers',
        'corral_change_feed_lag_events',
        'corral_webhook_deliveries',
        'nodejs_eventloop_lag_seconds',
        'process_resident_memory_bytes',
      ]) {
        expect(reply.body, name).toContain(`\n${name}`);
      }
      expect(sample(reply.body, 'corral_schema_version')).toBe(ctx.built.schema.snapshot.version);
      expect(sample(reply.body, 'corral_db_pool_connections{state="open"}')).toBeGreaterThanOrEqual(1);
      expect(sample(reply.body, 'corral_webhook_deliveries{status="failed"}')).toBe(0);
    });

    it('keeps label values bounded: no path, id or collection name reaches a label', async () => {
      await ctx.api.collection({ name: 'gauges', fields: [{ name: 'title', type: 'string' }] });
      for (let i = 0; i < 50; i++) {
        await ctx.api.get(`/api/gauges/${1000 + i}`);
        await ctx.api.get(`/api/missing${i}:list`);
        await ctx.api.get(`/api/gauges:action${i}`);
        await ctx.api.post(`/api/gauges:create`, { title: `t${i}` });
        await ctx.api.get(`/nowhere/${i}`);
      }
      const text = (await scrape(`Bearer ${TOKEN}`)).body;
      const labels = labelValues(text, 'corral_http_requests_total');
      expect([...labels.keys()].sort()).toEqual(['action', 'family', 'status_class']);
      expect([...labels.get('family')!].every((value) => ['api', 'openapi', 'studio', 'health', 'metrics', 'other'].includes(value))).toBe(true);
      expect([...labels.get('status_class')!].every((value) => /^[1-5]xx$/.test(value))).toBe(true);
      const actions = labels.get('action')!;
      expect(actions.size).toBeLessThanOrEqual(10);
      expect([...actions].some((value) => /\d|gauges|missing|nowhere/.test(value))).toBe(false);
      expect(sample(text, 'corral_http_requests_total{family="api",action="get",status_class="4xx"}')).toBe(50);
      expect(sample(text, 'corral_http_requests_total{family="api",action="other",status_class="4xx"}')).toBe(50);
      expect(sample(text, 'corral_http_requests_total{family="other",action="other",status_class="4xx"}')).toBe(50);
      expect(sample(text, 'corral_http_requests_total{family="api",action="create",status_class="2xx"}')).toBeGreaterThanOrEqual(50);
      const series = text.split('\n').filter((line) => line.startsWith('corral_http_requests_total{'));
      expect(series.length).toBeLessThan(20);
    });

    it("is what docs/operations.md lists: the table's metrics and labels, and every metric its queries name", async () => {
      const page = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
      const rows = [...page.matchAll(/^\| `(corral_\w+)` \| (\w+) \|([^|]*)\|/gm)].map((row) => [row[1], row[2], [...row[3]!.matchAll(/`(\w+)`/g)].map((label) => label[1]).join(',')]);
      const served = (await ctx.built.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body;
      const declared = [...served.matchAll(/^# TYPE (corral_\w+) (\w+)$/gm)].map((match) => [match[1], match[2]]);
      expect(rows.map(([name, type]) => [name, type])).toEqual(declared);
      for (const [name, , labels] of rows) {
        const names = new Set<string>();
        for (const line of served.split('\n')) if (line.startsWith(`${name}{`) || line.startsWith(`${name}_bucket{`)) for (const label of line.matchAll(/(\w+)="/g)) names.add(label[1]!);
        names.delete('le');
        // A counter with labels shows no sample before its first count (no server error in this test).
        if (names.size === 0 && !served.split('\n').some((line) => line.startsWith(`${name} `))) continue;
        expect([...names].sort().join(','), name).toBe(labels!.split(',').filter(Boolean).sort().join(','));
      }
      const queries = [...page.matchAll(/```promql\n([\s\S]*?)```/g)].map((block) => block[1]!).join('\n');
      for (const [name] of queries.matchAll(/\b(?:corral|process|nodejs)_\w+/g)) expect(served, name).toMatch(new RegExp(`^(# TYPE )?${name}[ {]`, 'm'));
    });

    it('counts event streams as subscribers while they are open', async () => {
      const before = sample((await scrape(`Bearer ${TOKEN}`)).body, 'corral_change_feed_subscribers');
      expect(before).toBe(ctx.built.changes.subscriberCount);
    });
  });

  describe(`metrics on a separate address on ${dialect}`, async () => {
    const port = await freePort();
    const ctx = useDialectApp(dialect, { metrics: { mode: 'address', host: '127.0.0.1', port } });

    it('serves /metrics there without a token, and nothing on the main port', async () => {
      await ctx.api.get('/api/app:getInfo');
      const reply = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(reply.status).toBe(200);
      const text = await reply.text();
      expect(text).toContain('corral_http_requests_total{family="api",action="getInfo",status_class="2xx"}');
      expect((await fetch(`http://127.0.0.1:${port}/api/app:getInfo`)).status).toBe(404);
      const main = await ctx.built.app.inject({ method: 'GET', url: '/metrics' });
      expect(main.statusCode).toBe(404);
      expect(main.json().errors[0].code).toBe('ROUTE_NOT_FOUND');
    });
  });
}
