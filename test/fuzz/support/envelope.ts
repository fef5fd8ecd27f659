import { ERROR_CATALOGUE } from '../../../src/errors/catalogue.js';
import type { Reply } from '../../support/test-app.js';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Why a reply breaks the contract (no 5xx, every answer a JSON envelope whose error codes come
 * from the catalogue with their own status), or undefined when it keeps it.
 */
export function envelopeProblem(method: string, reply: Reply): string | undefined {
  if (reply.status >= 500) return `status ${reply.status}`;
  // HEAD answers carry the headers of the GET answer and no body.
  if (method === 'HEAD') return undefined;
  const type = String(reply.headers['content-type'] ?? '');
  if (!type.startsWith('application/json')) return `content-type ${JSON.stringify(type)}`;
  const body: unknown = reply.body;
  if (!isRecord(body)) return `body is not a JSON object: ${reply.text.slice(0, 200)}`;
  if (reply.status < 400) {
    if (!('data' in body)) return 'a success without data';
    return undefined;
  }
  const errors = body.errors;
  if (!Array.isArray(errors) || errors.length === 0) return 'an error without errors[]';
  for (const entry of errors) {
    if (!isRecord(entry) || typeof entry.code !== 'string' || typeof entry.message !== 'string') return `a malformed error entry ${JSON.stringify(entry)}`;
    const known = (ERROR_CATALOGUE as Record<string, { status: number }>)[entry.code];
    if (known === undefined) return `unknown error code ${entry.code}`;
    if (known.status !== reply.status) return `${entry.code} is ${known.status} in the catalogue but came with ${reply.status}`;
  }
  return undefined;
}
