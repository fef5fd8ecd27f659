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
 */
export function parseResourcePath(path: string): ResourcePath | undefined {
  const segments = path.split('/');
  const [first, second, third, fourth] = segments;
  if (first === undefined || segments.length > 4) return undefined;
  const head = nameAndAction(first);
  if (head === undefined) return undefined;
  if (segments.length === 1) return { collection: head.name, ...(head.action ? { action: head.action } : {}) };
  if (segments.length === 2) {
    // <c>:<action>/<key> or REST <c>/<k>
    return head.action !== undefined
      ? { collection: head.name, action: head.action, key: decodeKey(second!) }
      : { collection: head.name, key: decodeKey(second!) };
  }
  if (head.action !== undefined) return undefined;
  const sourceKey = decodeKey(second!);
  const tail = nameAndAction(third!);
  if (tail === undefined) return undefined;
  const base = { collection: head.name, sourceKey, association: tail.name };
  if (segments.length === 3) return { ...base, ...(tail.action ? { action: tail.action } : {}) };
  return tail.action !== undefined
    ? { ...base, action: tail.action, key: decodeKey(fourth!) }
    : { ...base, key: decodeKey(fourth!) };
}
