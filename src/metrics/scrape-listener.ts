import { createServer, type Server } from 'node:http';

/** The separate listener: `GET /metrics` and 404 for anything else. */
export async function listenForScrapes(host: string, port: number, read: () => Promise<{ type: string; body: string }>, onError: (error: unknown) => void): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: metrics are at /metrics\n');
      return;
    }
    read().then(
      ({ type, body }) => response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(request.method === 'HEAD' ? undefined : body),
      (error: unknown) => {
        onError(error);
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('reading the metrics failed\n');
      },
    );
  });
  // The listener must not keep a process alive that is otherwise done.
  server.unref();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(new Error(`CORRAL_METRICS: cannot listen on ${host}:${port} (${error.message})`)));
    server.listen(port, host, () => resolve());
  });
  return server;
}
