import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator } from '../auth/authenticator.js';
import { STREAM_TICKET_TTL_MS } from '../auth/stream-ticket.js';
import { ApiError } from '../errors/api-error.js';
import { parseQueryParams } from '../request/query-params.js';
import { parseResourcePath } from '../request/resource-path.js';

/**
 * Redeems a stream ticket (`GET <prefix>/<c>:subscribe?ticket=…` without an Authorization
 * header; auth/stream-ticket.ts) before the request reaches the API: the ticket is checked for
 * this very path and subscription, then the request goes on as its user with a token made for
 * this request alone (never sent anywhere), so the usual checks run as for any subscribe: the
 * user exists and is enabled, holds the role, and may read the collection. A ticket asked before
 * the user's password changed, or before a role it was asked with was taken away, is refused
 * (STREAM_TICKET_REVOKED); the stream's token carries what was checked, so the stream's re-check
 * (changes/event-stream.ts) ends it at the next such change. A request with an
 * Authorization header is authenticated by that header; the ticket is then ignored.
 */
export function registerStreamTickets(app: FastifyInstance, authenticator: Authenticator, prefix: string): void {
  // Synchronous for every request without a ticket: an async hook would cost each one a promise.
  app.addHook('preHandler', (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || !request.url.includes('ticket=')) return done();
    redeem(request).then(() => done(), done);
  });

  const redeem = async (request: FastifyRequest): Promise<void> => {
    const query = request.query as Record<string, unknown> | undefined;
    const ticket = query?.ticket;
    if (ticket === undefined || request.headers.authorization !== undefined || !request.url.startsWith(`${prefix}/`)) return;
    if (typeof ticket !== 'string') throw new ApiError('STREAM_TICKET_INVALID', 'send one ticket');
    const url = request.url;
    const end = url.indexOf('?');
    const path = parseResourcePath(url.slice(prefix.length + 1, end === -1 ? url.length : end));
    if (path === undefined || path.action !== 'subscribe' || path.association !== undefined || path.key !== undefined) {
      throw new ApiError('STREAM_TICKET_INVALID', `a stream ticket opens only GET ${prefix}/<collection>:subscribe`);
    }
    const holder = authenticator.streamTickets.redeem(ticket, path.collection, parseQueryParams(query!, request.headers));
    // Refused (STREAM_TICKET_REVOKED) when the user changed since the ticket was asked for.
    const token = await authenticator.ticketToken(holder, Math.ceil(STREAM_TICKET_TTL_MS / 1000));
    request.headers.authorization = `Bearer ${token}`;
    if (holder.role === undefined) delete request.headers['x-role'];
    else request.headers['x-role'] = holder.role;
  };
}
