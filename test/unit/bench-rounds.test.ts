import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM JavaScript of the bench, no types
import { instructionFigures, median, medianHalfWidth, medianInterval, roundOrder, spread, wantsMoreInstructionRounds, wantsMoreRounds, writeWindow } from '../../bench/lib/rounds.mjs';
// @ts-expect-error plain ESM JavaScript of the bench, no types
import { parseCostRoots, parseTotals } from '../../bench/lib/callgrind.mjs';

describe('bench/lib/rounds.mjs', () => {
  it('takes the median and range of the numbers, leaving out what was not measured', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, null, 2, 3, undefined])).toBe(2.5);
    expect(median([null])).toBeNull();
    expect(spread([1.234, 0.987, null, 1.5])).toEqual([0.99, 1.5]);
    expect(spread([])).toBeNull();
  });

  it('alternates the order of a write round, so each server runs first as often as last', () => {
    expect([1, 2, 3, 4].map((round) => roundOrder(round, 2))).toEqual([
      [0, 1],
      [1, 0],
      [0, 1],
      [1, 0],
    ]);
    expect([1, 2].map((round) => roundOrder(round, 3))).toEqual([
      [0, 1, 2],
      [2, 1, 0],
    ]);
    // Over an even number of rounds, every server's mean position is the same.
    const rounds = Array.from({ length: 14 }, (_, i) => roundOrder(i + 1, 3) as number[]);
    const position = (server: number) => rounds.reduce((sum, order) => sum + order.indexOf(server), 0) / rounds.length;
    expect(new Set([0, 1, 2].map(position)).size).toBe(1);
  });

  it('gives the distribution-free 95% interval of the median by order statistics (none under 6 values)', () => {
    const ranks = (n: number) => medianInterval(Array.from({ length: n }, (_, i) => n - i)) as number[] | null;
    // The usual table: n = 6 → x(1)–x(6), 11 → x(2)–x(10), 12 → x(3)–x(10), 20 → x(6)–x(15), 30 → x(10)–x(21).
    expect(ranks(5)).toBeNull();
    expect(ranks(6)).toEqual([1, 6]);
    expect(ranks(11)).toEqual([2, 10]);
    expect(ranks(12)).toEqual([3, 10]);
    expect(ranks(20)).toEqual([6, 15]);
    expect(ranks(30)).toEqual([10, 21]);
    expect(medianInterval([1, null, 2, 3, undefined, 4, 5, 6])).toEqual([1, 6]);
    expect(medianHalfWidth([1, 2])).toBe(Infinity);
    // One wild round moves neither end of a 12-round interval.
    expect(medianHalfWidth([1, 1.01, 1.02, 1, 0.99, 1, 1.01, 0.98, 1, 1.02, 0.99, 9])).toBeCloseTo(0.015, 10);
  });

  it('adds rounds, a batch per pair, while the interval is wider than asked, never past the most', () => {
    const limits = { min: 12, max: 30, step: 2, halfWidth: 0.02 };
    const steady = Array.from({ length: 12 }, (_, i) => 1 + (i % 3) * 0.01);
    const noisy = Array.from({ length: 12 }, (_, i) => 1 + (i % 4) * 0.1);
    expect(wantsMoreRounds(10, steady.slice(0, 10), limits)).toBe(true);
    expect(wantsMoreRounds(12, steady, limits)).toBe(false);
    expect(wantsMoreRounds(12, noisy, limits)).toBe(true);
    expect(wantsMoreRounds(28, [...noisy, ...noisy, ...noisy.slice(0, 4)], limits)).toBe(true);
    expect(wantsMoreRounds(30, [...noisy, ...noisy, ...noisy.slice(0, 6)], limits)).toBe(false);
    // Without any ratio (no /proc) the rounds stop at the least.
    expect(wantsMoreRounds(12, [], { ...limits, max: 12 })).toBe(false);
  });

  it('sizes a write window in responses, the same for every server, after a quarter as many', () => {
    expect(writeWindow(2000)).toEqual({ settleRequests: 500, windowRequests: 2000 });
    expect(writeWindow(1)).toEqual({ settleRequests: 1, windowRequests: 1 });
  });

  it('takes each server\'s cheapest counted round for the instruction ratio, and every instruction for the context', () => {
    const round = (a: number, b: number, c?: number) => ({
      a: { instructions: a, requests: 100 },
      b: { instructions: b, requests: 100 },
      ...(c === undefined ? {} : { c: { instructions: c, requests: 100 } }),
    });
    // A compilation in Corral's second window and a collection in the baseline's third add to those rounds only.
    const runs = [round(220_000, 200_000, 210_000), round(560_000, 201_000, 212_000), round(221_000, 480_000, 211_000)];
    // Rounds that also counted the whole window and the collector's share (compile and GC left out of `instructions`).
    const split = (mutator: number, gc: number, compile: number) => ({ instructions: mutator, instructionsGc: gc, instructionsAll: mutator + gc + compile, requests: 100 });
    const counted = [
      { a: split(200_000, 40_000, 0), b: split(180_000, 0, 0) },
      { a: split(205_000, 0, 300_000), b: split(181_000, 20_000, 0) },
    ];
    // [rounds, cheapest C / B, ratio, range, GC per request C / B, with GC, all C / B, all]
    const cases = [
      [runs, [220_000, 200_000], 1.1, [0.46, 2.79], [0, 0], 1.1, [333_667, 293_667], 1.14],
      [counted, [200_000, 180_000], 1.11, [1.11, 1.13], [20_000, 10_000], 1.16, [372_500, 190_500], 1.96],
    ] as const;
    for (const [rounds, least, ratio, range, gc, withGc, all, allRatio] of cases) {
      expect(instructionFigures(rounds)).toEqual({
        instructionsPerRequest: least,
        instructionRatio: ratio,
        instructionSpread: range,
        instructionsGcPerRequest: gc,
        instructionRatioWithGc: withGc,
        instructionsPerRequestAll: all,
        instructionRatioAll: allRatio,
      });
    }
    expect(instructionFigures(runs, 'c', 'Events')).toMatchObject({ instructionsPerRequestEvents: [220_000, 210_000], instructionRatioEvents: 1.05 });
    // Rounds of CPU seconds only (no valgrind, no perf): no instruction figures at all.
    expect(instructionFigures([{ a: { instructions: null, requests: 1 }, b: { instructions: null, requests: 1 } }])).toEqual({});
  });

  it('adds instruction rounds until each server\'s cheapest round has a second within 2% of it', () => {
    const limits = { min: 6, max: 12, agreement: 0.02 };
    const warm = [271, 283, 284, 283, 284, 286].map((k) => k * 1000);
    const settled = [283, 284, 283, 284, 286, 285].map((k) => k * 1000);
    const baseline = [251, 250, 249, 250, 249, 250].map((k) => k * 1000);
    const compiling = [326, 586, 750, 621, 790, 553].map((k) => k * 1000);
    expect(wantsMoreInstructionRounds(5, [settled.slice(0, 5), baseline.slice(0, 5)], limits)).toBe(true);
    expect(wantsMoreInstructionRounds(6, [settled, baseline], limits)).toBe(false);
    // One lucky window is not yet a figure, nor is a process still compiling.
    expect(wantsMoreInstructionRounds(6, [warm, baseline], limits)).toBe(true);
    expect(wantsMoreInstructionRounds(6, [compiling, baseline], limits)).toBe(true);
    expect(wantsMoreInstructionRounds(12, [[...compiling, ...compiling], [...baseline, ...baseline]], limits)).toBe(false);
    // No counts (no valgrind): nothing to wait for.
    expect(wantsMoreInstructionRounds(6, [[null], [null]], limits)).toBe(false);
  });

  it('reads the count of a callgrind dump', () => {
    expect(parseTotals('version: 1\ncmd: node x\nevents: Ir\nfn=(1) main\n0 5\nsummary: 26603783\ntotals: 26603783\n')).toBe(26603783);
    expect(parseTotals('events: Ir\n')).toBeNull();
  });

  it('finds what V8 spent compiling and collecting in a window (inclusive costs at entry points that do not nest)', () => {
    const annotate = [
      '53,284,366 (100.0%)  PROGRAM TOTALS',
      '62,257,517 (116.8%)  ???:Builtins_CompileLazy\'2 [/usr/bin/node]',
      '29,767,302 (55.86%)  ???:v8::internal::Runtime_CompileOptimized(int, unsigned long*, v8::internal::Isolate*) [/usr/bin/node]',
      '29,767,066 (55.86%)  ???:v8::internal::Compiler::CompileOptimized(v8::internal::Isolate*) [/usr/bin/node]',
      '   438,123 ( 1.82%)  ???:v8::internal::baseline::BaselineBatchCompiler::EnqueueFunction(v8::internal::Handle<v8::internal::JSFunction>) [/usr/bin/node]',
      ' 2,449,714 (11.62%)  ???:v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace) [/usr/bin/node]',
      ' 2,359,792 (11.19%)  ???:v8::internal::Heap::Scavenge() [/usr/bin/node]',
      '49,995,503 (63.01%)  ???:v8::internal::IncrementalMarking::Step(double, v8::internal::StepOrigin) [/usr/bin/node]',
      '17,467,238 (22.01%)  ???:v8::internal::IncrementalMarkingJob::Task::RunInternal() [/usr/bin/node]',
    ].join('\n');
    expect(parseCostRoots(annotate)).toEqual({ compile: 29_767_302 + 438_123, gc: 2_449_714 + 49_995_503 });
    expect(parseCostRoots('')).toEqual({ compile: 0, gc: 0 });
  });
});
