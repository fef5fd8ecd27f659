/** The server-only channel of a write, for edge code that writes through the store (the upload). */
export { serverValues, type ServerValues } from '../plan/server-values.js';
