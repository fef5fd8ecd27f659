// @nocobase/sdk 2.2.x does not load under Node as published: lib/auth-cookie.js requires
// `@nocobase/utils/client`, which the SDK does not declare. It is used only for browser
// cookies, so a small stand-in is enough for the require to succeed.
import Module, { createRequire } from 'node:module';

const UTILS_CLIENT = '@nocobase/utils/client';
const standIn = new Module(UTILS_CLIENT);
standIn.loaded = true;
// Only called in a browser (document.cookie).
standIn.exports = { getAuthCookieName: (type, app) => `NOCOBASE_${app ? `${app.toUpperCase()}_` : ''}${type.toUpperCase()}` };
Module._cache[UTILS_CLIENT] = standIn;
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === UTILS_CLIENT ? UTILS_CLIENT : resolve.call(this, request, ...rest);
};
export const { APIClient } = createRequire(import.meta.url)('@nocobase/sdk');
Module._resolveFilename = resolve;
