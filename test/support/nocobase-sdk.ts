import Module, { createRequire } from 'node:module';

/**
 * The official NocoBase client SDK, unchanged, against Corral on a real socket.
 *
 * @nocobase/sdk 2.2.15 does not load under Node as published: lib/auth-cookie.js requires
 * `@nocobase/utils/client`, which the SDK lists only as a devDependency, so
 * `import '@nocobase/sdk'` throws MODULE_NOT_FOUND. The module is used only for browser
 * cookies (each function returns early when `document` is undefined), so when it is missing
 * we stand in a tiny substitute for it, and for nothing else.
 */
export type Sdk = typeof import('@nocobase/sdk');

const UTILS_CLIENT = '@nocobase/utils/client';

export async function loadSdk(): Promise<Sdk> {
  try {
    return (await import('@nocobase/sdk')) as Sdk;
  } catch (error) {
    if (!String((error as Error)?.message).includes(UTILS_CLIENT)) throw error;
  }
  const loader = Module as unknown as {
    _resolveFilename: (request: string, ...rest: unknown[]) => string;
    _cache: Record<string, unknown>;
  };
  const shimId = `${UTILS_CLIENT} (corral test substitute)`;
  const shim = new Module(shimId);
  shim.filename = shimId;
  shim.loaded = true;
  // Only reached in a browser (document.cookie); present so the require succeeds.
  shim.exports = {
    getAuthCookieName: (type: string, appName?: string) => `NOCOBASE_${appName ? `${appName.toUpperCase()}_` : ''}${type.toUpperCase()}`,
  };
  loader._cache[shimId] = shim;
  const resolve = loader._resolveFilename;
  loader._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]) {
    return request === UTILS_CLIENT ? shimId : resolve.call(this, request, ...rest);
  };
  try {
    return createRequire(import.meta.url)('@nocobase/sdk') as Sdk;
  } finally {
    loader._resolveFilename = resolve;
  }
}

/** What axios rejects with on a non-2xx answer. */
export async function rejection(promise: Promise<unknown>): Promise<{ status: number; data: any }> {
  try {
    await promise;
  } catch (error) {
    const response = (error as { response?: { status: number; data: unknown } }).response;
    if (response === undefined) throw error;
    return response;
  }
  throw new Error('the request was expected to fail');
}

