const SERVER = Symbol('serverValues');

/**
 * Values the server itself writes (an upload's storage key, hash, size and type): the only
 * body through which server-managed fields are bound (bind-write-values.ts), and the only
 * create an upload-only collection takes (store/write-grants.ts). A client body is plain JSON
 * and can never carry the symbol.
 */
export interface ServerValues {
  readonly [SERVER]: true;
  readonly values: Readonly<Record<string, unknown>>;
}

export function serverValues(values: Readonly<Record<string, unknown>>): ServerValues {
  return { [SERVER]: true, values };
}

export function isServerValues(body: unknown): body is ServerValues {
  return typeof body === 'object' && body !== null && (body as Partial<ServerValues>)[SERVER] === true;
}
