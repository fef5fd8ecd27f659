import { ApiError } from '../errors/api-error.js';

export const READ_METHODS = ['GET', 'HEAD'] as const;
export const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * How an action is reached: a read by GET/HEAD, a read with a body by POST, a write by the
 * write methods. `readOrPost` is a read the NocoBase SDK sends by POST (it uses GET only for
 * get and list), so it takes both.
 */
export type ActionKind = 'read' | 'readOrPost' | 'readWithBody' | 'write';

const ALLOWED: Record<ActionKind, readonly string[]> = {
  read: READ_METHODS,
  readOrPost: ['GET', 'HEAD', 'POST'],
  readWithBody: ['POST'],
  write: WRITE_METHODS,
};

export function checkMethod(kind: ActionKind, method: string): void {
  const allowed = ALLOWED[kind];
  if (!allowed.includes(method)) {
    throw new ApiError('METHOD_NOT_ALLOWED', `${method} is not allowed here; use ${allowed.join(', ')}`, {
      headers: { allow: allowed.join(', ') },
    });
  }
}

/**
 * REST style: the method picks the action. On the collection (or association) itself:
 * GET list, POST create, DELETE destroy. On one item, or a to-one association: GET get,
 * PUT/PATCH update, DELETE destroy.
 */
export function restAction(method: string, hasKey: boolean, toOne = false): 'list' | 'create' | 'get' | 'update' | 'destroy' {
  // A to-one association's own path names its one row: it maps like an item, and POST creates.
  if (toOne && !hasKey && method !== 'POST') return restAction(method, true);
  if (!hasKey) {
    if (method === 'GET' || method === 'HEAD') return 'list';
    if (method === 'POST') return 'create';
    if (method === 'DELETE') return 'destroy';
    throw new ApiError('METHOD_NOT_ALLOWED', `${method} is not allowed on a collection`, { headers: { allow: 'GET, HEAD, POST, DELETE' } });
  }
  if (method === 'GET' || method === 'HEAD') return 'get';
  if (method === 'PUT' || method === 'PATCH') return 'update';
  if (method === 'DELETE') return 'destroy';
  throw new ApiError('METHOD_NOT_ALLOWED', `${method} is not allowed on an item`, { headers: { allow: 'GET, HEAD, PUT, PATCH, DELETE' } });
}
