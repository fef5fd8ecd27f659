// @ts-check
// The shapes the harness passes between its modules (JSDoc only: this module exports nothing).

/** @typedef {'sqlite' | 'postgres'} DatabaseKind */

/**
 * A database of the run: a SQLite file or a PostgreSQL database of its own; `url` is the
 * servers' DATABASE_URL.
 * @typedef {{ kind: 'sqlite', url: string, file: string } | { kind: 'postgres', url: string, name: string }} BenchDatabase
 */

/**
 * What a scenario's request may draw on (random, or fixed for the checks).
 * @typedef {object} RequestContext
 * @property {(n: number) => number} int
 * @property {number} posts
 * @property {() => number} postId
 * @property {() => number} authorId
 */

/** @typedef {{ method: string, path: string, body?: unknown }} ScenarioRequest */

/**
 * A scenario (bench/scenarios.mjs).
 * @typedef {object} Scenario
 * @property {string} name
 * @property {number} [target] the CPU ratio it should stay under (none: context)
 * @property {string} [as] the user it runs as (bench/lib/auth.mjs)
 * @property {number} [connections]
 * @property {number} [seconds]
 * @property {boolean} [writes]
 * @property {string} [data]
 * @property {string} [acceptEncoding] sent as Accept-Encoding with every request of the scenario (`--accept-encoding` overrides)
 * @property {(ctx: RequestContext) => ScenarioRequest} request
 * @property {string} [question] `--large`: the question as the table shows it
 * @property {boolean} [baseline] `--large`: the baseline answers it too
 * @property {Scenario} [stall] `--large`: heavy requests loading the server while this one is measured
 */

/**
 * A server process of the run (Corral or a baseline).
 * @typedef {ReturnType<typeof import('./proc.mjs').startProcess> & { url: string, database: BenchDatabase, workers?: number, firstAnswerMs?: number, served?: number }} Server
 */

/** @typedef {{ read: () => number }} CpuClock */

/**
 * How long a load runs: `{ requests, maxSeconds }` (whichever ends first), `{ settle, seconds,
 * clock }` (a measured window of `seconds` that opens `settle` seconds in), or
 * `{ settleRequests, windowRequests, clock }` (a counted window of `windowRequests` responses
 * that opens at the `settleRequests`-th): see load() in bench/lib/load.mjs.
 * @typedef {object} LoadLength
 * @property {number} [requests]
 * @property {number} [maxSeconds]
 * @property {number} [settle]
 * @property {number} [seconds]
 * @property {number} [settleRequests]
 * @property {number} [windowRequests]
 * @property {CpuClock} [clock]
 */

/**
 * A load's figures.
 * @typedef {object} LoadResult
 * @property {number} rps responses per second (of the window, if any)
 * @property {number} p50
 * @property {number} p99
 * @property {number} requests responses (of the window, if any)
 * @property {number} totalRequests
 * @property {number | undefined} windowCpuNs the server's CPU over the window
 */

/**
 * One server's figures of one round.
 * @typedef {LoadResult & {
 *   peakRss: number | null,
 *   cpuUs: number | null,
 *   cpuUsWholeRun: number | null,
 *   instructions: number | null,
 *   instructionsAll?: number,
 *   instructionsGc?: number,
 *   instructionsCompile?: number,
 * }} Measured
 */

/**
 * Instruction figures of a row (rounds.mjs, instructionFigures), under --instructions or with
 * perf; the events baseline's carry the suffix `Events`.
 * @typedef {object} InstructionFigures
 * @property {number[]} [instructionsPerRequest]
 * @property {number | null} [instructionRatio]
 * @property {number[] | null} [instructionSpread]
 * @property {number[]} [instructionsGcPerRequest]
 * @property {number | null} [instructionRatioWithGc]
 * @property {number[]} [instructionsPerRequestAll]
 * @property {number | null} [instructionRatioAll]
 * @property {number[]} [instructionsPerRequestEvents]
 * @property {number | null} [instructionRatioEvents]
 * @property {number[] | null} [instructionSpreadEvents]
 */

/**
 * One scenario on one pair of servers: a row of the report and of the JSON
 * (bench/results/latest.json, read by bench/compare.mjs). `[Corral, baseline]` pairs of medians.
 * @typedef {InstructionFigures & {
 *   scenario: string,
 *   target: number | undefined,
 *   cpuUs: (number | null)[],
 *   cpuRatio: number | null,
 *   cpuSpread: number[] | null,
 *   cpuInterval: number[] | null,
 *   roundsRun: number,
 *   processes: number,
 *   cpuRatioByPair: (number | null)[],
 *   cpuRatioWholeRun: number | null,
 *   cpuSpreadWholeRun: number[] | null,
 *   metric: 'instructions' | 'cpu',
 *   rps: number[],
 *   requests: (number | null)[],
 *   rateRatio: number | null,
 *   rateSpread: number[] | null,
 *   p50Ms: (number | null)[],
 *   p99Ms: (number | null)[],
 *   peakRssMb: number | null,
 *   writeWindow?: { settleRequests: number, windowRequests: number },
 *   order?: 'alternating',
 *   rounds: object[],
 *   cpuUsEvents?: number | null,
 *   cpuRatioEvents?: number | null,
 *   cpuSpreadEvents?: number[] | null,
 *   rpsEvents?: number,
 *   rateRatioEvents?: number | null,
 *   rateSpreadEvents?: number[] | null,
 * }} Row
 */

export {};
