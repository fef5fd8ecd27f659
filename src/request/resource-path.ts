import { ApiError } from '../errors/api-error.js';
import { NAME_PATTERN } from '../schema/types.js';

/**
 * The four path templates of the API, after the prefix:
 *   <c>[:<action>[/<key>]]            <c>/<k>
 *   <c>/<k>/<a>[:<action>[/<ak>]]     <c>/<k>/<a>/<ak>
 * `key` is the item key in the last position, from `:<action>/<key>` or the REST form.
 */
export interface ResourcePath {
  collection: string;
  /** Key of the source item, for association paths. */
  sourceKey?: string;
  association?: string;
  /** Action name after ':'; absent in the REST style. */
  action?: string;
  key?: string;
}

const ACTION_PATTERN = /^[A-Za-z][A-Za-z0-9]{0,62}$/;

/** Splits `name:action`; both parts must be well formed. */
function nameAndAction(segment: string): { name: string; action?: string } | undefined {
  const colon = segment.indexOf(':');
  const name = colon === -1 ? segment : segment.slice(0, colon);
  if (!NAME_PATTERN.test(name)) return undefined;
  if (colon === -1) return { name };
  const action = segment.slice(colon + 1);
  return ACTION_PATTERN.test(action) ? { name, action } : undefined;
}

/** A raw ':' in a key position is a mistyped action, not a key: keys holding ':' are sent as %3A. */
function decodeKey(segment: string): string {
  if (segment === '' || segment.includes(':')) throw new ApiError('ROUTE_NOT_FOUND');
  // Nothing to decode without a '%' (decodeURIComponent would return the same text).
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ApiError('KEY_INVALID', 'the key is not valid percent-encoding');
  }
}

/**
 * Parses the path below the API prefix (no query string). Returns undefined when no template
 * matches. Names and actions are matched on the raw text, so an encoded ':' (%3A) belongs to a key.
 * (Segments are found with indexOf: `split('/')` and its array cost more than the rest of the parse.)
 */
export function parseResourcePath(path: string): ResourcePath | undefined {
  const end1 = path.indexOf('/');
  const head = nameAndAction(end1 === -1 ? path : path.slice(0, end1));
  if (head === undefined) return undefined;
  if (end1 === -1) return head.action === undefined ? { collection: head.name } : { collection: head.name, action: head.action };
  const end2 = path.indexOf('/', end1 + 1);
  if (end2 === -1) {
    // <c>:<action>/<key> or REST <c>/<k>
    const key = decodeKey(path.slice(end1 + 1));
    return head.action !== undefined ? { collection: head.name, action: head.action, key } : { collection: head.name, key };
  }
  if (head.action !== undefined) return undefined;
  const end3 = path.indexOf('/', end2 + 1);
  // More than four segments match no template.
  if (end3 !== -1 && path.indexOf('/', end3 + 1) !== -1) return undefined;
  const sourceKey = decodeKey(path.slice(end1 + 1, end2));
  const tail = nameAndAction(end3 === -1 ? path.slice(end2 + 1) : path.slice(end2 + 1, end3));
  if (tail === undefined) return undefined;
  const base = { collection: head.name, sourceKey, association: tail.name };
  if (end3 === -1) return tail.action === undefined ? base : { ...base, action: tail.action };
  const key = decodeKey(path.slice(end3 + 1));
  return tail.action !== undefined ? { ...base, action: tail.action, key } : { ...base, key };
}
