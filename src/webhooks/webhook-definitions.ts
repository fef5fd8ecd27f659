import { ApiError } from '../errors/api-error.js';
import { SYSTEM_COLLECTION_TABLES } from '../schema/system-collection-tables.js';
import { checkWebhookUrl } from './webhook-url.js';

/** The `webhooks` system collection (its rows: what to send where; the secret is kept beside the delivery state). */
export const WEBHOOKS = 'webhooks';
const ACTIONS = ['create', 'update', 'destroy'] as const;
const FIELDS = ['url', 'collections', 'actions', 'secret', 'active'];
const MIN_SECRET = 8;

/** The collection's definition, created at first start with the other system collections. */
export const WEBHOOKS_DEFINITION = {
  name: WEBHOOKS,
  tableName: SYSTEM_COLLECTION_TABLES.webhooks,
  fields: [
    { name: 'url', type: 'string', length: 2048, allowNull: false },
    { name: 'collections', type: 'json', allowNull: false },
    { name: 'actions', type: 'json' },
    { name: 'active', type: 'boolean', allowNull: false, defaultValue: true },
  ],
} as const;

/** A webhook as the API returns it: never the secret. */
export interface WebhookItem {
  id: number;
  url: string;
  collections: string[];
  actions: string[] | null;
  active: boolean;
}

export function webhookItem(row: Record<string, unknown>): WebhookItem {
  return {
    id: Number(row.id),
    url: String(row.url),
    collections: row.collections as string[],
    actions: (row.actions ?? null) as string[] | null,
    active: row.active === true,
  };
}

/** What a webhook body writes: the collection's values, and the secret when given. */
export interface WebhookWrite {
  readonly values: Record<string, unknown>;
  readonly secret?: string;
}

function stringList(value: unknown, name: string, allowed?: readonly string[]): string[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every((entry) => typeof entry === 'string' && entry !== '')) {
    throw new ApiError('VALIDATION_FAILED', `${name} must be a non-empty array of names`, { field: name });
  }
  if (allowed !== undefined && !value.every((entry) => allowed.includes(entry as string))) {
    throw new ApiError('VALIDATION_FAILED', `${name} may hold ${allowed.join(', ')}`, { field: name });
  }
  return value as string[];
}

function secretOf(value: unknown): string {
  if (typeof value !== 'string' || value.length < MIN_SECRET) throw new ApiError('VALIDATION_FAILED', `secret must be a string of at least ${MIN_SECRET} characters`, { field: 'secret' });
  return value;
}

/**
 * The webhooks collection's check before a write, run before anything is written (a refused
 * body changes nothing): known fields only, a URL the target-address rules accept
 * (WEBHOOK_URL_FORBIDDEN), lists of names, a secret of 8 characters or more.
 */
export async function checkWebhookBody(body: unknown, mode: 'create' | 'update', allowPrivate: boolean): Promise<WebhookWrite> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError('BODY_INVALID', mode === 'create' ? 'a webhook is an object' : 'a webhook update is an object');
  const input = body as Record<string, unknown>;
  for (const name of Object.keys(input)) {
    if (!FIELDS.includes(name) && !(mode === 'update' && name === 'id')) throw new ApiError('VALUE_UNKNOWN_FIELD', `webhooks have no field ${name}`, { field: name });
  }
  const values: Record<string, unknown> = {};
  let secret: string | undefined;
  if (mode === 'create') {
    values.url = await checkWebhookUrl(input.url, allowPrivate);
    values.collections = stringList(input.collections, 'collections');
    values.actions = input.actions === undefined || input.actions === null ? null : stringList(input.actions, 'actions', ACTIONS);
    secret = secretOf(input.secret);
    values.active = input.active ?? true;
    if (typeof values.active !== 'boolean') throw new ApiError('VALIDATION_FAILED', 'active must be a boolean', { field: 'active' });
    return { values, secret };
  }
  // An update checks its fields in the order given, as before.
  for (const [name, value] of Object.entries(input)) {
    if (name === 'url') values.url = await checkWebhookUrl(value, allowPrivate);
    else if (name === 'collections') values.collections = stringList(value, 'collections');
    else if (name === 'actions') values.actions = value === null ? null : stringList(value, 'actions', ACTIONS);
    else if (name === 'secret') secret = secretOf(value);
    else if (name === 'active') {
      if (typeof value !== 'boolean') throw new ApiError('VALIDATION_FAILED', 'active must be a boolean', { field: 'active' });
      values.active = value;
    }
  }
  return secret === undefined ? { values } : { values, secret };
}
