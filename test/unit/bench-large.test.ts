import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM JavaScript of the bench, no types
import { describeAnswer } from '../../bench/lib/answers.mjs';
// @ts-expect-error plain ESM JavaScript of the bench, no types
import { largeSettings } from '../../bench/lib/cli.mjs';
// @ts-expect-error plain ESM JavaScript of the bench, no types
import { LARGE_SCENARIOS, postCursorId } from '../../bench/scenarios.mjs';

type Question = { name: string; baseline?: boolean; connections?: number; stall?: unknown; request: (ctx: object) => { method: string; path: string } };
const questions = LARGE_SCENARIOS as Question[];
const path = (name: string, posts: number) => {
  const question = questions.find((q) => q.name === name);
  if (question === undefined) throw new Error(`no question ${name}`);
  return question.request({ int: () => 7, posts, postId: () => 42, authorId: () => 3 }).path;
};

describe('bench --large (issue 28)', () => {
  it("names each answer by its status and error code when refused, by its rows and count otherwise", () => {
    expect(describeAnswer({ status: 400, body: { errors: [{ code: 'PAGE_TOO_DEEP', message: 'use cursor' }] } })).toBe('400 PAGE_TOO_DEEP');
    expect(describeAnswer({ status: 400, body: 'not json' })).toBe('400');
    expect(describeAnswer({ status: 200, body: { data: [{}, {}], meta: { count: 1_000_000, page: 1 } } })).toBe('2 rows, count 1000000');
    expect(describeAnswer({ status: 200, body: { data: [{}], meta: { count: 999_871, countEstimated: true } } })).toBe('1 rows, count 999871 (estimated)');
    expect(describeAnswer({ status: 200, body: { data: 1_000_000 } })).toBe('count 1000000');
    expect(describeAnswer({ status: 200, body: { data: 999_871, meta: { countEstimated: true } } })).toBe('count 999871 (estimated)');
    expect(describeAnswer({ status: 200, body: { data: [{}], meta: { hasNext: true, nextCursor: 'x' } } })).toBe('1 rows, hasNext true');
    expect(describeAnswer({ status: 200, body: { data: { status: 'ok' } } })).toBe('ok');
  });

  it('seeds 1,000,000 posts by default and 20,000 with --quick; the flags override', () => {
    expect(largeSettings({})).toMatchObject({ posts: 1_000_000, rounds: 2, seconds: 5, settle: 1 });
    expect(largeSettings({ quick: true })).toMatchObject({ posts: 20_000, rounds: 1, seconds: 1 });
    expect(largeSettings({ quick: true, 'large-posts': '500', rounds: '3', only: 'list,count' })).toMatchObject({ posts: 500, rounds: 3, only: ['list', 'count'] });
  });

  it("asks issue 28's questions at 2 connections, the deep page and the cursor's row in proportion to the table", () => {
    expect(questions.map((q) => q.name)).toEqual(['list', 'filter', 'count-estimated', 'list-estimated', 'deep', 'count', 'q', 'cursor', 'stall-healthz', 'stall-get']);
    expect(questions.filter((q) => q.stall === undefined).every((q) => q.connections === 2)).toBe(true);
    expect(questions.filter((q) => q.baseline === true).map((q) => q.name)).toEqual(['list', 'filter', 'deep', 'count', 'cursor']);
    expect(path('deep', 1_000_000)).toContain('page=40000');
    expect(path('deep', 20_000)).toContain('page=800');
    expect(path('count-estimated', 1_000_000)).toBe('/api/posts:count?count=estimated');
    const cursor = (posts: number) => postCursorId(decodeURIComponent(new URL(path('cursor', posts), 'http://x').searchParams.get('cursor') ?? ''));
    expect(cursor(1_000_000)).toBe(199_980);
    expect(cursor(20_000)).toBe(3_999);
  });
});

describe('bench --large --quick on SQLite (smoke)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-large-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('seeds in SQL, answers and measures every question asked, and reports each status in the table and the JSON', () => {
    const json = join(dir, 'large.json');
    const args = ['bench/run.mjs', '--large', '--quick', '--db=sqlite', '--large-posts=2000', '--only=list,count-estimated,deep,q,stall-get', '--duration=0.3', '--settle=0.1', '--warmup=5', `--json=${json}`];
    const run = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 120_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('Large tables (issue 28)');
    const report = JSON.parse(readFileSync(json, 'utf8')) as { settings: { large: { posts: number } }; largeRows: { scenario: string; posts: number; status: (number | null)[]; answer: (string | null)[]; cpuUs: (number | null)[]; p50Ms: (number | null)[] }[] };
    expect(report.settings.large.posts).toBe(2000);
    expect(report.largeRows.map((r) => r.scenario)).toEqual(['list', 'count-estimated', 'deep', 'q', 'stall-get']);
    const row = (name: string) => report.largeRows.find((r) => r.scenario === name);
    // The baseline answers the questions it has, with the same rows; the others are Corral's alone.
    expect(row('list')?.status).toEqual([200, 200]);
    expect(row('list')?.answer[0]).toBe('20 rows, count 2000');
    expect(row('deep')?.cpuUs.every((v) => typeof v === 'number' && v > 0)).toBe(true);
    expect(row('q')?.status).toEqual([200, null]);
    expect(row('q')?.answer[0]).toBe('20 rows, count 2000');
    expect(row('stall-get')?.p50Ms[0]).toEqual(expect.any(Number));
    // A refused question (400) shows its status and is not measured; any 2xx is measured.
    const estimated = row('count-estimated');
    if (estimated?.status[0] === 200) expect(estimated.cpuUs[0]).toEqual(expect.any(Number));
    else expect(estimated?.cpuUs[0]).toBeNull();
  }, 150_000);
});
