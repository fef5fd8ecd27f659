import { Socket } from 'node:net';

/**
 * Which dialects a vitest run uses, decided once in the main process (vitest.config.ts) before
 * any worker starts; workers read the result from CORRAL_TEST_DIALECTS (test-database.ts).
 *
 * - CORRAL_TEST_DIALECTS set: exactly those, no probing (a listed server that is down fails its tests).
 * - Not set: SQLite always, plus PostgreSQL and MariaDB/MySQL where something answers on their port;
 *   the ones left out are printed at the end of the run (dialect-summary.ts).
 * - CORRAL_TEST_REQUIRE_ALL=1 (CI): a wanted server that does not answer fails the run at once, never a skip.
 */
export interface DialectChoice {
  dialects: string[];
  /** Dialects left out because nothing answered, each with the address probed. */
  skipped: { dialect: string; address: string }[];
}

export const PG_ADMIN_URL_DEFAULT = 'postgres://postgres@127.0.0.1:5432/postgres';
export const MYSQL_ADMIN_URL_DEFAULT = 'mysql://root@127.0.0.1:3306/';

function answers(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, host, () => done(true));
  });
}

function addressOf(url: string, defaultPort: number): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname || '127.0.0.1', port: parsed.port === '' ? defaultPort : Number(parsed.port) };
}

export async function chooseDialects(env: NodeJS.ProcessEnv): Promise<DialectChoice> {
  const servers = [
    { dialect: 'postgres', ...addressOf(env.CORRAL_TEST_PG_URL ?? PG_ADMIN_URL_DEFAULT, 5432) },
    { dialect: 'mysql', ...addressOf(env.CORRAL_TEST_MYSQL_URL ?? MYSQL_ADMIN_URL_DEFAULT, 3306) },
  ];
  const requireAll = env.CORRAL_TEST_REQUIRE_ALL === '1';
  const asked = env.CORRAL_TEST_DIALECTS;
  const wanted = asked === undefined ? ['sqlite', 'postgres', 'mysql'] : asked.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const probed = await Promise.all(servers.filter((server) => wanted.includes(server.dialect)).map(async (server) => ({ ...server, up: await answers(server.host, server.port, 1000) })));
  const down = probed.filter((server) => !server.up).map((server) => ({ dialect: server.dialect, address: `${server.host}:${server.port}` }));
  if (requireAll && down.length > 0) {
    throw new Error(`CORRAL_TEST_REQUIRE_ALL=1 but nothing answers for ${down.map((server) => `${server.dialect} on ${server.address}`).join(' and ')}`);
  }
  // An explicit list is obeyed as given: a listed server that is down fails its tests loudly.
  if (asked !== undefined) return { dialects: wanted, skipped: [] };
  return { dialects: wanted.filter((name) => !down.some((server) => server.dialect === name)), skipped: down };
}
