import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { jsonDepthOver } from '../json-depth.js';

/** Deepest JSON request body (records, nested writes and their json values all fit well within). */
export const MAX_BODY_DEPTH = 64;

/** Charset names that mean UTF-8 in a Content-Type (the only one Corral reads). */
const UTF8_NAMES: ReadonlySet<string> = new Set(['utf-8', 'utf8']);

const CHARSET_PARAMETER = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/** The charset parameter of a Content-Type, lower case, or undefined when there is none. */
export function bodyCharset(contentType: string | undefined): string | undefined {
  // Parameters follow a ';': a plain `application/json` has none (the usual case, no regex run).
  if (contentType === undefined || !contentType.includes(';')) return undefined;
  const match = CHARSET_PARAMETER.exec(contentType);
  return match === null ? undefined : match[1]!.toLowerCase();
}

/**
 * The only bodies Corral reads: UTF-8 JSON (an empty one counts as none; null and bodies
 * nesting deeper than MAX_BODY_DEPTH are refused) and an empty form. Anything else is 415.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const charset = bodyCharset(request.headers['content-type']);
    if (charset !== undefined && !UTF8_NAMES.has(charset)) {
      return done(new ApiError('UNSUPPORTED_MEDIA_TYPE', `the body must be UTF-8 JSON (got charset=${charset.slice(0, 40)})`), undefined);
    }
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(new ApiError('BODY_INVALID_JSON'), undefined);
    }
    // No action takes a bare null: `PUT /api/posts/1` with null is a mistake, not an empty update.
    if (parsed === null) return done(new ApiError('BODY_INVALID', 'the body must not be null'), undefined);
    if (jsonDepthOver(parsed, MAX_BODY_DEPTH)) return done(new ApiError('BODY_INVALID', `the body nests deeper than ${MAX_BODY_DEPTH} levels`), undefined);
    done(null, parsed);
  });

  // axios (the NocoBase SDK) labels a body-less POST such as auth:signOut as a form: accept it when empty.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    if ((typeof body === 'string' ? body : body.toString('utf8')) === '') return done(null, undefined);
    done(new ApiError('UNSUPPORTED_MEDIA_TYPE'), undefined);
  });
}
