import type { FastifyRequest } from 'fastify';
import type { Access } from '../auth/permissions.js';
import type { Authenticator } from '../auth/authenticator.js';
import { headerText } from './header-text.js';

/** The access of a request's caller, from its Authorization and X-Role headers (401 without a valid credential). */
export function requestAccess(authenticator: Authenticator): (request: FastifyRequest) => Promise<Access> {
  return async (request) => authenticator.access(await authenticator.authenticate(request.headers.authorization, headerText(request.headers['x-role'])));
}
