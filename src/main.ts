/**
 * Process entry: read config, build the app, listen, shut down gracefully on SIGTERM/SIGINT.
 * `bin/corral.js` prints any error thrown from here as one line (`corral: <message>`), so
 * start-up failures are rethrown with a short message rather than left to print a stack.
 */
import cluster from 'node:cluster';
import { access, constants } from 'node:fs/promises';
import { APPLIES_SCHEMA_ENV, isRevokedMessage, REVOKED_MESSAGE, runPrimary, SHUTDOWN_MESSAGE, type RevokedMessage } from './cluster/run-primary.js';
import type { Config } from './config/config.js';
import { loadConfig } from './config/load-config.js';
import { settingsHelp } from './config/settings.js';
import { ClusterRelay } from './cluster/invalidation.js';
import { CORRAL_VERSION } from './version.js';

const USAGE = `Usage: corral [command] [options]

Commands:
  start              run the HTTP server (default)
  schema export      print the schema of --database as the JSON that --schema applies
  help               print this help (also --help, -h)
  version            print the version (also --version)

${settingsHelp()}`;

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
      if (config.workers > 1 && cluster.isPrimary) {
        await runPrimary(config);
        return;
      }
      if (cluster.isWorker && env[APPLIES_SCHEMA_ENV] !== '1') {
        // Only the first worker applies the schema file; the others load what it made.
        delete config.schemaFile;
      }
      await start(config);
      return;
    case 'schema-export':
      await exportSchemaCommand(config);
      return;
  }
}

/**
 * Prints the schema file of the database (stdout), for schema-as-code: `corral schema export > schema.json`.
 * It only reads: a missing SQLite file or a database without Corral's tables is a one-line error, exit 1.
 */
async function exportSchemaCommand(config: Config): Promise<void> {
  const { readSchemaFile } = await import('./schema/read-schema-file.js');
  let file: Awaited<ReturnType<typeof readSchemaFile>>;
  try {
    file = await readSchemaFile(config.database, { connectMs: config.dbConnectTimeoutMs, statementMs: config.dbStatementTimeoutMs });
  } catch (error) {
    throw new Error(`cannot export: ${messageOf(error)}`);
  }
  process.stdout.write(`${JSON.stringify(file, null, 2)}\n`);
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
  if (cluster.isWorker) {
    // Which worker answered: the process tests check that workers share what they serve.
    const worker = String(process.pid);
    app.addHook('onRequest', (_request, reply, done) => {
      reply.header('x-corral-worker', worker);
      done();
    });
    // Changes of users, roles, API keys and the schema reach the other workers before they are acknowledged.
    const send = (message: object): void => {
      if (process.send === undefined) throw new Error('no channel to the primary');
      process.send(message, undefined, {}, (error: Error | null) => {
        if (error !== null) app.log.warn({ err: error }, 'a message to the primary was not sent');
      });
    };
    const relay = new ClusterRelay(send, (notice) => built.propagation.apply(notice), app.log);
    // Before listening: the primary counts on every listening worker to confirm.
    process.on('message', (message: unknown) => void relay.receive(message));
    built.propagation.setRelay((notice) => relay.announce(notice));
  }
  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await close().catch(() => undefined);
    throw new Error(`cannot start: ${messageOf(error)}`);
  }
  const studio = config.studio === false ? '' : `, studio ${address}/`;
  app.log.info(`Corral listening on ${address}: API ${address}${config.apiPrefix}, docs ${address}${config.apiPrefix}/docs${studio}`);

  let shuttingDown = false;
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    signals++;
    if (signals > 1) {
      // A second signal means the operator does not want to wait.
      app.log.warn(`${signal} received again, exiting now`);
      exitNow();
    }
    shutDown(signal);
  };
  /** `reason`: the signal, or the primary's request (a worker gets both on Ctrl-C in a terminal). */
  const shutDown = (reason: string): void => {
    if (shuttingDown) return;
    shuttingDown = true;
    app.log.info(`${reason} received, shutting down (up to ${config.shutdownTimeoutMs} ms)`);
    const timer = setTimeout(() => {
      app.log.error(`shutdown took longer than ${config.shutdownTimeoutMs} ms, exiting`);
      exitNow();
    }, config.shutdownTimeoutMs);
    close().then(
      () => {
        clearTimeout(timer);
        app.log.info('shutdown finished');
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
  if (cluster.isWorker) {
    process.on('message', (message: unknown) => {
      if (message === SHUTDOWN_MESSAGE) shutDown('shutdown request from the primary');
      // Another worker's sign-out: the token stops working here too, at once.
      else if (isRevokedMessage(message)) built.auth?.noteRevoked(message.jti, message.expiresAt);
    });
    built.auth?.onRevoked((jti, expiresAt) => {
      const message: RevokedMessage = { type: REVOKED_MESSAGE, jti, expiresAt };
      process.send?.(message);
    });
  }
}

/**
 * Ends the process at once. process.exit() waits for V8's background threads, and an
 * optimizing compile of a huge generated function (a driver's row parser for a 190-column
 * table) kept one busy for minutes, so a timed-out shutdown did not end. A signal to itself
 * cannot be held up (the exit status is then 137, the SIGKILL status).
 */
function exitNow(): void {
  // The logger writes asynchronously: give its last lines a moment to reach stdout.
  setTimeout(() => {
    process.exitCode = 1;
    process.kill(process.pid, 'SIGKILL');
  }, LOG_FLUSH_WAIT_MS);
}

/** How long a forced exit waits for the log to be written. */
const LOG_FLUSH_WAIT_MS = 200;

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
