// @ts-check
// PostgreSQL's share of a request: the CPU time of the database's backends (the server
// processes PostgreSQL runs for each connection), read from /proc like the servers' own. Only
// where the database runs on this machine and its processes can be read (a local PostgreSQL).
import { cpuClock } from './cpu.mjs';
import { withPostgres } from './databases.mjs';

/**
 * The pids of the backends connected to the bench database, other than the one asking.
 * @param {import('./types.mjs').BenchDatabase} database
 * @returns {Promise<number[]>}
 */
export async function backendPids(database) {
  if (database.kind !== 'postgres') return [];
  /** @type {number[]} */
  let pids = [];
  await withPostgres(database, async (client) => {
    const { rows } = await client.query("select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'");
    pids = rows.map((row) => Number(row.pid));
  });
  return pids;
}

/**
 * A clock of the backends connected to the database now (null on SQLite, whose work runs in
 * the server's own process, or when no backend's /proc entry can be read): its `read()`
 * returns the nanoseconds they have run since. A backend opened later is not counted, so load
 * the server (warm its pool) first; parallel workers are not either (the `--large` data set
 * turns them off, see bench/lib/large-data.mjs).
 * @param {import('./types.mjs').BenchDatabase} database
 * @returns {Promise<{ read: () => number } | null>}
 */
export async function databaseClock(database) {
  const pids = await backendPids(database);
  if (pids.length === 0) return null;
  const clock = cpuClock(pids);
  return clock.precise ? clock : null;
}
