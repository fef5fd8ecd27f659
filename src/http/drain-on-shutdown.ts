import type { Server } from 'node:http';

/** How often a draining server closes the keep-alive connections that have gone idle. */
export const DRAIN_SWEEP_MS = 50;

/**
 * Node's `server.close()` closes idle keep-alive connections once, when it is called; a
 * connection busy with a request at that moment stays open after its response (keep-alive),
 * so the server never finished closing and a SIGTERM during a long streamed list ended in
 * the shutdown timeout. While draining, idle connections are closed every DRAIN_SWEEP_MS, so
 * each one goes as soon as its last response is sent. Nothing is done per request.
 */
export function drainOnShutdown(server: Server): { drain(): void } {
  return {
    drain: () => {
      const timer = setInterval(() => server.closeIdleConnections(), DRAIN_SWEEP_MS);
      timer.unref();
      server.once('close', () => clearInterval(timer));
    },
  };
}
