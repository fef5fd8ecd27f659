// @ts-check
// The run's configuration, read once from the command line, and the places it works in: every
// module of the harness reads its settings from here.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { callgrindSupported } from './callgrind.mjs';
import { parseCli } from './cli.mjs';

export { fail } from './cli.mjs';

/** The checkout this harness belongs to. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const RESULTS = join(ROOT, 'bench', 'results');
/** The address every server listens on (also its HOST variable, which callgrind_control needs). */
export const SERVER_HOST = '127.0.0.1';
export const POOL_SIZE = 10; // Corral's default CORRAL_DB_POOL_SIZE, given to both servers explicitly
/** Posts of the `--scale` data set, inserted directly in SQL. */
export const SCALE_POSTS = 1_000_000;
/** Scenarios of the 1-worker-against-2 measurement. */
export const WORKER_SCENARIOS = ['get'];
export const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export const { opts, settings, databases, scenarios, serverNodeFlags, corralRoot } = parseCli(process.argv.slice(2), { callgrindSupported });
/** The Corral measured: this checkout's, or the one of --corral=DIR. */
export const CORRAL_ROOT = corralRoot ?? ROOT;

/** SQLite files, callgrind dumps and the servers' working directory; removed at the end. */
export const tempDir = mkdtempSync(join(tmpdir(), 'corral-bench-'));

/** @param {string} message */
export const log = (message) => process.stderr.write(`[bench] ${message}\n`);
/** @param {number | null | undefined} bytes */
export const mb = (bytes) => (bytes === null || bytes === undefined ? null : Math.round((bytes / 1048576) * 10) / 10);
