/**
 * Process entry: read config, build the app, listen, shut down gracefully on SIGTERM/SIGINT.
 * `bin/corral.js` prints any error thrown from here as one line (`corral: <message>`), so
 * start-up failures are rethrown with a short message rather than left to print a stack.
 */
import { access, constants } from 'node:fs/promises';
import type { Config } from './config/config.js';
import { loadConfig } from './config/load-config.js';
import { CORRAL_VERSION } from './version.js';

const USAGE = `Usage: corral [command] [options]

Commands:
  start              run the HTTP server (default)
  help               print this help (also --help, -h)
  version            print the version (also --version)

Options (each also as --option=value; options beat environment variables):
  --port <n>         PORT                        listen port, 0-65535 (default 13000)
  --host <host>      HOST                        listen address (default 127.0.0.1)
  --database <url>   DATABASE_URL                sqlite:<path> | sqlite::memory: | postgres://... |
                                                 postgresql://... | mysql://... | mariadb://...
                                                 (default sqlite:./storage/corral.sqlite)
  --schema <file>    CORRAL_SCHEMA               schema file applied at start (optional)

Environment only:
  LOG_LEVEL                   fatal|error|warn|info|debug|trace|silent (default info)
  CORRAL_BODY_LIMIT           largest request body: bytes, or with kb/mb (1kb-1024mb, default 1mb)
  CORRAL_API_PREFIX           API path prefix (default /api)
  CORRAL_DB_POOL_SIZE         PostgreSQL/MySQL connections per node, 1-100 (default 10)
  CORRAL_SHUTDOWN_TIMEOUT_MS  graceful shutdown limit before exiting 1 (default 10000)
  CORRAL_SCHEMA_POLL_MS       how often to look for schema changes, 50-60000 (default 500)
  CORRAL_AUTH                 on (default) or off; off is refused unless HOST is loopback
  CORRAL_ROOT_EMAIL           root user's email at first start (default root@localhost)
  CORRAL_ROOT_PASSWORD        root user's password at first start (default: generated, printed once)
  CORRAL_AUTH_SECRET          token signing secret, 32+ characters (default: generated, kept in the database)
  CORRAL_TOKEN_TTL_SECONDS    sign-in token lifetime, 60-31622400 (default 604800)
`;

export async function main(argv: string[], env: Record<string, string | undefined>): Promise<void> {
  const { command, config } = loadConfig(argv, env);
  switch (command) {
    case 'help':
      process.stdout.write(USAGE);
      return;
    case 'version':
      process.stdout.write(`${CORRAL_VERSION}\n`);
      return;
    case 'start':
      await start(config);
      return;
  }
}


async function start(config: Config): Promise<void> {
  // Imported lazily so that `help` and `version` do not load Fastify and the drivers.
  const { buildApp } = await import('./app.js');
  if (config.schemaFile !== undefined) {
    // Checked here so the one-line error names the setting (buildApp would say only "ENOENT: …").
    await access(config.schemaFile, constants.R_OK).catch((error: unknown) => {
      throw new Error(`cannot start: CORRAL_SCHEMA: cannot read ${config.schemaFile} (${messageOf(error)})`);
    });
  }
  let built: Awaited<ReturnType<typeof buildApp>>;
  try {
    built = await buildApp(config);
  } catch (error) {
    throw new Error(`cannot start: ${messageOf(error)}`);
  }
  const { app, close } = built;
  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await close().catch(() => undefined);
    throw new Error(`cannot start: ${messageOf(error)}`);
  }
  app.log.info(`Corral listening on ${address}${config.apiPrefix}`);

  let shuttingDown = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (shuttingDown) {
      // A second signal means the operator does not want to wait.
      app.log.warn(`${signal} received again, exiting now`);
      process.exit(1);
    }
    shuttingDown = true;
    app.log.info(`${signal} received, shutting down (up to ${config.shutdownTimeoutMs} ms)`);
    const timer = setTimeout(() => {
      app.log.error(`shutdown took longer than ${config.shutdownTimeoutMs} ms, exiting`);
      process.exit(1);
    }, config.shutdownTimeoutMs);
    close().then(
      () => {
        clearTimeout(timer);
        process.exit(0);
      },
      (error: unknown) => {
        clearTimeout(timer);
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // Node's connect() throws an AggregateError with an empty message when every address fails
  // (e.g. ::1 and 127.0.0.1); its first cause says what happened ("connect ECONNREFUSED …").
  if (message === '' && error instanceof AggregateError && error.errors[0] !== undefined) {
    return messageOf(error.errors[0]);
  }
  // bin/corral.js prints one line; driver messages sometimes span several.
  return message.split('\n')[0]?.trim() || 'unknown error';
}
