/**
 * CORRAL_WORKERS > 1: this process becomes the primary of a `node:cluster` and serves nothing
 * itself. It starts worker 1 alone (it creates Corral's tables on a fresh database and applies
 * CORRAL_SCHEMA, so no two processes race for either), then the others; every worker opens its
 * own database connections and shares the port (the primary hands out connections in turn).
 * A worker that dies unexpectedly is started again, unless workers die too often
 * (CRASH_LIMIT within CRASH_WINDOW_MS): then the primary stops the rest and exits 1.
 * SIGTERM/SIGINT asks every worker to drain (SHUTDOWN_MESSAGE); the primary exits 0 when all
 * exited 0, and kills what is left and exits 1 after CORRAL_SHUTDOWN_TIMEOUT_MS.
 * A worker's change of users, roles, API keys or the schema is passed to every other worker,
 * and the primary answers the worker once all of them dropped their caches (INVALIDATE_MESSAGE).
 */
import cluster, { type Worker } from 'node:cluster';
import type { Config, LogLevel } from '../config/config.js';
import { INVALIDATE_WAIT_MS, isInvalidatedMessage, isInvalidateMessage, type InvalidatedMessage } from './invalidation.js';

/** Set in every worker's environment: its slot, 1..workers (a restarted worker keeps its slot). */
export const WORKER_SLOT_ENV = 'CORRAL_WORKER_SLOT';
/** Set to '1' for the one worker that applies CORRAL_SCHEMA (the first, at the first start). */
export const APPLIES_SCHEMA_ENV = 'CORRAL_WORKER_APPLIES_SCHEMA';
/** The primary's message asking a worker to shut down gracefully. */
export const SHUTDOWN_MESSAGE = 'corral:shutdown';
/**
 * A worker's sign-out, passed on by the primary to every other worker so the token stops
 * working on all of them at once (other nodes see it on their next revocation poll).
 */
export const REVOKED_MESSAGE = 'corral:revoked';
export interface RevokedMessage {
  type: typeof REVOKED_MESSAGE;
  jti: string;
  expiresAt: number;
}
export function isRevokedMessage(message: unknown): message is RevokedMessage {
  if (typeof message !== 'object' || message === null) return false;
  const { type, jti, expiresAt } = message as Record<string, unknown>;
  return type === REVOKED_MESSAGE && typeof jti === 'string' && typeof expiresAt === 'number';
}
/** More unexpected worker exits than this within CRASH_WINDOW_MS: a crash loop, give up. */
export const CRASH_LIMIT = 5;
export const CRASH_WINDOW_MS = 60_000;
/** Pause before starting a worker again, so a failing one does not spin. */
export const RESTART_DELAY_MS = 200;

/** pino's numbers, so the primary's lines read like the workers'. */
const LEVELS: Record<LogLevel, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

interface Slot {
  slot: number;
  worker: Worker;
  listening: boolean;
}

export async function runPrimary(config: Config): Promise<void> {
  const threshold = LEVELS[config.logLevel];
  const log = (level: 'info' | 'warn' | 'error', msg: string): void => {
    if (LEVELS[level] < threshold) return;
    process.stdout.write(`${JSON.stringify({ level: LEVELS[level], time: Date.now(), pid: process.pid, role: 'primary', msg })}\n`);
  };

  // Metrics on their own address: the primary serves every worker's, combined (metrics/cluster-metrics.ts).
  if (config.metrics?.mode === 'address') await (await import('../metrics/cluster-metrics.js')).serveClusterMetrics(config.metrics, (error) => log('error', `reading the workers' metrics failed: ${String(error)}`));
  const slots = new Map<number, Slot>();
  const crashes: number[] = [];
  let shuttingDown = false;
  let failedExit = false;
  /** Worker 1 has started: from then on, a worker that dies is started again. */
  let running = false;

  const fork = (slot: number, appliesSchema: boolean): Slot => {
    const env: Record<string, string> = { [WORKER_SLOT_ENV]: String(slot) };
    if (appliesSchema) env[APPLIES_SCHEMA_ENV] = '1';
    const entry: Slot = { slot, worker: cluster.fork(env), listening: false };
    slots.set(slot, entry);
    entry.worker.once('listening', () => {
      entry.listening = true;
    });
    entry.worker.once('exit', (code, signal) => onExit(entry, code, signal));
    entry.worker.on('message', (message: unknown) => {
      if (isRevokedMessage(message)) {
        for (const other of slots.values()) if (other !== entry && other.worker.isConnected()) other.worker.send(message);
      } else if (isInvalidateMessage(message)) relayInvalidation(entry, message);
      else if (isInvalidatedMessage(message)) invalidated(entry, message.id);
    });
    // A message to a worker that is going away fails; its exit is handled above.
    entry.worker.on('error', () => undefined);
    return entry;
  };

  /** Invalidations passed on and not yet confirmed by every worker, by id. */
  const pending = new Map<string, { origin: Slot; waiting: Set<Slot>; timer: NodeJS.Timeout }>();
  const answerOrigin = (id: string): void => {
    const entry = pending.get(id);
    if (entry === undefined) return;
    pending.delete(id);
    clearTimeout(entry.timer);
    const done: InvalidatedMessage = { type: 'corral:invalidated', id };
    if (entry.origin.worker.isConnected()) entry.origin.worker.send(done);
  };
  /**
   * Passes a worker's invalidation to every other listening worker and answers it when all
   * confirmed, or after INVALIDATE_WAIT_MS (a worker that does not answer is logged and not
   * waited for: it drops its caches at its next poll at the latest). A worker not listening
   * yet serves nothing; it is not waited for.
   */
  const relayInvalidation = (origin: Slot, message: { id: string }): void => {
    const waiting = new Set([...slots.values()].filter((other) => other !== origin && other.listening && other.worker.isConnected()));
    const timer = setTimeout(() => {
      const late = pending.get(message.id);
      if (late === undefined) return;
      log('warn', `worker ${[...late.waiting].map((slot) => `${slot.slot} (pid ${slot.worker.process.pid})`).join(', ')} did not confirm a cache invalidation within ${INVALIDATE_WAIT_MS} ms; answering without it`);
      answerOrigin(message.id);
    }, INVALIDATE_WAIT_MS);
    pending.set(message.id, { origin, waiting, timer });
    for (const other of waiting) other.worker.send(message);
    if (waiting.size === 0) answerOrigin(message.id);
  };
  const invalidated = (from: Slot, id: string): void => {
    const entry = pending.get(id);
    if (entry === undefined) return;
    entry.waiting.delete(from);
    if (entry.waiting.size === 0) answerOrigin(id);
  };

  const onExit = (entry: Slot, code: number | null, signal: string | null): void => {
    if (slots.get(entry.slot) === entry) slots.delete(entry.slot);
    // A worker that is gone has no caches left to drop.
    for (const [id, waiting] of pending) {
      if (waiting.waiting.delete(entry) && waiting.waiting.size === 0) answerOrigin(id);
      else if (waiting.origin === entry) {
        clearTimeout(waiting.timer);
        pending.delete(id);
      }
    }
    if (shuttingDown) {
      // A worker killed before it listened has nothing to drain; any other must exit 0.
      if (entry.listening && code !== 0) failedExit = true;
      if (slots.size === 0) process.exit(failedExit ? 1 : 0);
      return;
    }
    if (!running) return;
    const now = Date.now();
    crashes.push(now);
    while (crashes.length > 0 && crashes[0]! < now - CRASH_WINDOW_MS) crashes.shift();
    const how = signal === null ? `code ${code}` : `signal ${signal}`;
    if (crashes.length > CRASH_LIMIT) {
      log('error', `worker ${entry.slot} (pid ${entry.worker.process.pid}) exited (${how}); ${crashes.length} exits within ${CRASH_WINDOW_MS} ms, giving up`);
      failedExit = true;
      shutdown();
      return;
    }
    log('warn', `worker ${entry.slot} (pid ${entry.worker.process.pid}) exited unexpectedly (${how}), starting it again`);
    setTimeout(() => {
      if (!shuttingDown) fork(entry.slot, false);
    }, RESTART_DELAY_MS);
  };

  const shutdown = (): void => {
    shuttingDown = true;
    if (slots.size === 0) process.exit(failedExit ? 1 : 0);
    for (const { worker, listening } of slots.values()) {
      if (!worker.isConnected()) continue;
      // Not listening yet: it has not set up its own graceful shutdown, and serves nothing.
      if (listening) worker.send(SHUTDOWN_MESSAGE);
      else worker.process.kill('SIGTERM');
    }
    setTimeout(() => {
      log('error', `shutdown took longer than ${config.shutdownTimeoutMs} ms, exiting`);
      for (const { worker } of slots.values()) worker.process.kill('SIGKILL');
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
  };

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    signals++;
    if (signals > 1) {
      // A second signal means the operator does not want to wait.
      log('warn', `${signal} received again, exiting now`);
      for (const { worker } of slots.values()) worker.process.kill('SIGKILL');
      process.exit(1);
    }
    if (shuttingDown) return;
    log('info', `${signal} received, shutting down ${slots.size} workers (up to ${config.shutdownTimeoutMs} ms)`);
    shutdown();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  // Worker 1 first and alone: on a fresh database it creates Corral's tables, and it alone
  // applies CORRAL_SCHEMA. If it cannot start, it has said why on stderr; the primary exits 1.
  const first = fork(1, config.schemaFile !== undefined);
  const started = await new Promise<boolean>((resolve) => {
    first.worker.once('listening', () => resolve(true));
    first.worker.once('exit', () => resolve(false));
  });
  if (!started) {
    if (!shuttingDown) process.exit(1);
    return;
  }
  if (shuttingDown) return;
  running = true;
  for (let slot = 2; slot <= config.workers; slot++) fork(slot, false);
  log('info', `Corral primary (pid ${process.pid}) started ${config.workers} workers`);
}
