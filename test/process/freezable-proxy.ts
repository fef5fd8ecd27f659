/**
 * A TCP proxy in front of a database that can be frozen: while frozen it accepts connections
 * and reads what both sides send, but forwards nothing (a database that accepts TCP and never
 * answers). `resume()` forwards what was held and everything after.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface FreezableProxy {
  readonly port: number;
  freeze(): void;
  resume(): void;
  close(): Promise<void>;
}

interface Pipe {
  from: Socket;
  to: Socket;
  held: Buffer[];
}

export async function startFreezableProxy(target: { host: string; port: number }): Promise<FreezableProxy> {
  let frozen = false;
  const pipes = new Set<Pipe>();
  const sockets = new Set<Socket>();

  const forward = (pipe: Pipe): void => {
    pipe.from.on('data', (chunk: Buffer) => {
      if (frozen) pipe.held.push(chunk);
      else pipe.to.write(chunk);
    });
  };

  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      // A reset from either side ends the pair; the error itself is expected here.
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    const up: Pipe = { from: client, to: upstream, held: [] };
    const down: Pipe = { from: upstream, to: client, held: [] };
    for (const pipe of [up, down]) {
      pipes.add(pipe);
      pipe.from.on('close', () => pipes.delete(pipe));
      forward(pipe);
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;

  return {
    port,
    freeze: () => {
      frozen = true;
    },
    resume: () => {
      frozen = false;
      for (const pipe of pipes) {
        for (const chunk of pipe.held.splice(0)) pipe.to.write(chunk);
      }
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
