/**
 * The studio's one way to the API: sends the token, X-Role and X-Timezone, and turns an
 * `{"errors":[…]}` answer into an ApiFailure whose entries name their fields.
 */
export interface ErrorEntry {
  code: string;
  message: string;
  field?: string;
}

export interface Meta {
  count?: number;
  page?: number;
  pageSize?: number;
  totalPage?: number;
  hasNext?: boolean;
  nextCursor?: string;
}

export interface Answer<T> {
  data: T;
  meta?: Meta;
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly entries: ErrorEntry[],
  ) {
    super(entries.map((entry) => entry.message).join('; ') || `HTTP ${status}`);
  }

  /** Messages per field, for showing next to the inputs. */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const entry of this.entries) if (entry.field !== undefined) out[entry.field] = out[entry.field] === undefined ? entry.message : `${out[entry.field]}; ${entry.message}`;
    return out;
  }

  /** Messages that name no field. */
  general(): string[] {
    return this.entries.filter((entry) => entry.field === undefined).map((entry) => `${entry.message} (${entry.code})`);
  }
}

const TOKEN_KEY = 'corral.token';
const ROLE_KEY = 'corral.role';

/** The API prefix the server wrote into the page (`<meta name="corral-api">`). */
export const API_PREFIX = document.querySelector<HTMLMetaElement>('meta[name="corral-api"]')?.content ?? '/api';
export const TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

export const session = {
  get token(): string | null {
    return sessionStorage.getItem(TOKEN_KEY);
  },
  set token(value: string | null) {
    if (value === null) sessionStorage.removeItem(TOKEN_KEY);
    else sessionStorage.setItem(TOKEN_KEY, value);
  },
  get role(): string | null {
    return sessionStorage.getItem(ROLE_KEY);
  },
  set role(value: string | null) {
    if (value === null || value === '') sessionStorage.removeItem(ROLE_KEY);
    else sessionStorage.setItem(ROLE_KEY, value);
  },
};

/** Called when the API answers 401 to a signed-in request (the token expired or was revoked). */
let onUnauthorized: () => void = () => undefined;
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

export type Query = Record<string, string | number | boolean | undefined | null | object>;

/** A query string: objects (filters) as JSON, arrays as comma lists. */
export function queryString(query: Query | undefined): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      if (value.length > 0) params.set(name, value.join(','));
    } else if (typeof value === 'object') params.set(name, JSON.stringify(value));
    else params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

export function headers(extra: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = { 'x-timezone': TIME_ZONE, ...extra };
  const token = session.token;
  if (token !== null) out.authorization = `Bearer ${token}`;
  const role = session.role;
  if (role !== null) out['x-role'] = role;
  return out;
}

/** `call('GET', 'posts:list', {query})`: the path is relative to the API prefix. */
export async function call<T = unknown>(method: string, path: string, options: { query?: Query; body?: unknown } = {}): Promise<Answer<T>> {
  const init: RequestInit = { method, headers: headers(options.body === undefined ? {} : { 'content-type': 'application/json' }) };
  if (options.body !== undefined) init.body = JSON.stringify(options.body);
  let response: Response;
  try {
    response = await fetch(`${API_PREFIX}/${path}${queryString(options.query)}`, init);
  } catch (error) {
    throw new ApiFailure(0, [{ code: 'NETWORK', message: `the server did not answer (${String(error)})` }]);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const entries = isObject(body) && Array.isArray(body.errors) ? (body.errors as ErrorEntry[]) : [{ code: `HTTP_${response.status}`, message: text.slice(0, 200) || response.statusText }];
    if (response.status === 401 && session.token !== null && !path.startsWith('auth:signIn')) onUnauthorized();
    throw new ApiFailure(response.status, entries);
  }
  return (isObject(body) ? body : { data: undefined }) as unknown as Answer<T>;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A message for anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
