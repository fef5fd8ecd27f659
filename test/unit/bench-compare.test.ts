import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/** The bench's tools are plain scripts: run them as the docs say (bench/README.md). */
const dir = mkdtempSync(join(tmpdir(), 'corral-bench-compare-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function report(file: string, ratios: Record<string, number | null>): string {
  const rows = Object.entries(ratios).map(([key, cpuRatio]) => {
    const [scenario, database] = key.split('/');
    return { scenario, database, cpuRatio, cpuSpread: cpuRatio === null ? null : [cpuRatio - 0.01, cpuRatio + 0.01], rateRatio: 1, rateSpread: [1, 1] };
  });
  const path = join(dir, file);
  writeFileSync(path, JSON.stringify({ date: '2026-11-22T00:00:00.000Z', rows, scaleRows: [] }));
  return path;
}

function compare(...args: string[]) {
  return spawnSync(process.execPath, ['bench/compare.mjs', ...args], { encoding: 'utf8' });
}

describe('bench/compare.mjs', () => {
  it('exits 0 when every scenario agrees within ±0.05, a difference of exactly 0.05 included', () => {
    const a = report('a.json', { 'get/sqlite': 1.1, 'list/postgres': 0.95 });
    const b = report('b.json', { 'get/sqlite': 1.15, 'list/postgres': 0.92 });
    const result = compare(a, b);
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('2 of 2 rows agree within ±0.05');
    expect(result.stdout).toMatch(/get\s+\| sqlite\s+\|\s+1\.10 \| 1\.09–1\.11 \|\s+1\.15 \| 1\.14–1\.16 \|\s+\+0\.05 \|/);
  });

  it('flags a row beyond the tolerance and exits 1; rows of one run only are left out', () => {
    const a = report('c.json', { 'get/sqlite': 1.1, 'page450/postgres': 1.56, 'query/postgres': 1.11 });
    const b = report('d.json', { 'get/sqlite': 1.12, 'page450/postgres': 1.24 });
    const result = compare(a, b);
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/page450\s+\| postgres .*-0\.32 \| > ±0\.05 \|/);
    expect(result.stdout).toContain('1 of 2 rows agree within ±0.05; 1 do not');
    expect(result.stdout).not.toContain('query');
  });

  it('compares the context column of the write rows with --field=cpuRatioEvents, leaving out rows without it', () => {
    const row = (scenario: string, cpuRatioEvents?: number) => ({
      scenario,
      database: 'sqlite',
      cpuRatio: 1.2,
      cpuSpread: [1.1, 1.3],
      ...(cpuRatioEvents === undefined ? {} : { cpuRatioEvents, cpuSpreadEvents: [cpuRatioEvents - 0.02, cpuRatioEvents + 0.02] }),
    });
    const write = (file: string, events: number) => {
      const path = join(dir, file);
      writeFileSync(path, JSON.stringify({ date: '2026-11-23T00:00:00.000Z', rows: [row('get'), row('create', events)], scaleRows: [] }));
      return path;
    };
    const result = compare(write('g.json', 1.1), write('h.json', 1.2), '--field=cpuRatioEvents');
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/create\s+\| sqlite\s+\|\s+1\.10 \| 1\.08–1\.12 \|\s+1\.20 \| 1\.18–1\.22 \|\s+\+0\.10 \| > ±0\.05 \|/);
    expect(result.stdout).toContain('0 of 1 rows agree within ±0.05; 1 do not');
  });

  it('takes another tolerance and field, and refuses a wrong call with its usage', () => {
    const a = report('e.json', { 'get/sqlite': 1.1 });
    const b = report('f.json', { 'get/sqlite': 1.18 });
    expect(compare(a, b, '--tolerance=0.1').status).toBe(0);
    expect(compare(a, b, '--field=rateRatio').stdout).toContain('1 of 1 rows agree');
    const wrong = compare(a);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('usage: node bench/compare.mjs');
  });
});

describe('bench/lib/cpu.mjs cpuClock', () => {
  it("counts a process's own CPU in nanoseconds, not in 10 ms ticks", () => {
    const script = `
      import { cpuClock, schedstatSupported } from './bench/lib/cpu.mjs';
      const before = process.cpuUsage();
      const clock = cpuClock([process.pid]);
      const start = process.cpuUsage();
      while (process.cpuUsage(start).user < 30000);
      const ns = clock.read();
      const total = process.cpuUsage(before);
      console.log(JSON.stringify({ ns, precise: clock.precise, schedstatSupported, usageNs: (total.user + total.system) * 1000 }));`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    const { ns, precise, schedstatSupported, usageNs } = JSON.parse(result.stdout) as { ns: number; precise: boolean; schedstatSupported: boolean; usageNs: number };
    expect(precise).toBe(schedstatSupported);
    // 30 ms of CPU in a busy loop; ticks would read 20, 30 or 40 ms exactly.
    expect(ns).toBeGreaterThan(28e6);
    // No more than the process's own CPU over a window that encloses the clock's (getrusage, all
    // threads): a fixed bound failed in CI, where V8's background threads ran long under load.
    expect(ns).toBeLessThan(usageNs * 1.1 + 20e6);
    if (precise) expect(ns % 1e7).not.toBe(0);
  });
});
