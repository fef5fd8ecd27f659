import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';

/** A TCP proxy in front of a database that can stop passing bytes (a frozen server). */
export interface PauseProxy {
  readonly port: number;
  /** Stops forwarding in both directions; new connections are accepted and left silent. */
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startPauseProxy(targetHost: string, targetPort: number): Promise<PauseProxy> {
  let frozen = false;
  const pairs = new Set<[Socket, Socket]>();
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
    client.pipe(upstream);
    upstream.pipe(client);
    if (frozen) {
      client.pause();
      upstream.pause();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    freeze: () => {
      frozen = true;
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    thaw: () => {
      frozen = false;
      for (const [client, upstream] of pairs) {
        client.pipe(upstream);
        upstream.pipe(client);
      }
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
