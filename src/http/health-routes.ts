import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import { ApiError } from '../errors/api-error.js';

/** /readyz answers within 2 s (API.md section 12), whatever the database does. */
export const READYZ_TIMEOUT_MS = 1500;

/** /healthz (the process answers) and /readyz (the database answers a ping in time, else 503). */
export function registerHealthRoutes(app: FastifyInstance, database: Pick<Database, 'ping' | 'dialect'>): void {
  app.get('/healthz', async () => ({ data: { status: 'ok' } }));
  app.get('/readyz', async () => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        database.ping(),
        new Promise((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${READYZ_TIMEOUT_MS} ms`)), READYZ_TIMEOUT_MS);
        }),
      ]);
    } catch (error) {
      throw new ApiError('DATABASE_UNAVAILABLE', undefined, { cause: error });
    } finally {
      clearTimeout(timer);
    }
    return { data: { status: 'ready', dialect: database.dialect } };
  });
}
