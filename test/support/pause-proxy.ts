import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';

/** A TCP proxy in front of a database that can stop passing bytes (a frozen server). */
export interface PauseProxy {
  readonly port: number;
  /** Stops forwarding in both directions; new connections are accepted and left silent. */
  freeze(): void;
  thaw(): void;
  /** Sends the database's next chunk to the client twice (a connection that breaks the protocol). */
  garbleNext(): void;
  close(): Promise<void>;
}

export async function startPauseProxy(targetHost: string, targetPort: number): Promise<PauseProxy> {
  let frozen = false;
  let garble = false;
  const pairs = new Set<[Socket, Socket]>();
  /** Pairs whose bytes flow now. A pair is piped at most once: piping twice sends every chunk twice. */
  const flowing = new WeakSet<[Socket, Socket]>();
  const pipe = (pair: [Socket, Socket]): void => {
    if (flowing.has(pair)) return;
    flowing.add(pair);
    pair[0].pipe(pair[1]);
    pair[1].pipe(pair[0]);
  };
  const duplicate = (client: Socket, chunk: Buffer): void => {
    if (!garble) return;
    garble = false;
    client.write(chunk);
  };
  const server = createServer((client) => {
    const upstream = createConnection({ host: targetHost, port: targetPort });
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => {
      upstream.destroy();
      pairs.delete(pair);
    });
    upstream.on('close', () => client.destroy());
    upstream.on('data', (chunk: Buffer) => duplicate(client, chunk));
    // Accepted while frozen: left silent (not piped) until thaw.
    if (frozen) {
      client.pause();
      upstream.pause();
    } else pipe(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    freeze: () => {
      frozen = true;
      for (const pair of pairs) {
        const [client, upstream] = pair;
        flowing.delete(pair);
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    thaw: () => {
      frozen = false;
      for (const pair of pairs) pipe(pair);
    },
    garbleNext: () => {
      garble = true;
    },
    close: async () => {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
