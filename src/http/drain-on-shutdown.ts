import type { ServerResponse, Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Node's `server.close()` closes idle keep-alive connections once, when it is called; a
 * connection busy with a request at that moment stays open after its response (keep-alive),
 * so the server never finishes closing and a SIGTERM during a long streamed list ended in the
 * shutdown timeout (exit 1). While draining, every connection is closed as soon as its
 * response is complete, and responses that have not sent their headers yet say
 * `Connection: close`.
 */
export function drainOnShutdown(server: Server): { drain(): void } {
  const inFlight = new Map<ServerResponse, Socket>();
  let draining = false;
  const endSoon = (socket: Socket): void => {
    // After 'close' of the response its bytes are handed to the OS; end() sends FIN after them.
    setImmediate(() => {
      if (!socket.destroyed) socket.end();
    });
  };
  server.on('request', (request, response: ServerResponse) => {
    const socket = request.socket;
    inFlight.set(response, socket);
    if (draining && !response.headersSent) response.setHeader('connection', 'close');
    response.once('close', () => {
      inFlight.delete(response);
      if (draining) endSoon(socket);
    });
  });
  return {
    drain: () => {
      draining = true;
      for (const response of inFlight.keys()) {
        if (!response.headersSent) response.setHeader('connection', 'close');
      }
    },
  };
}

