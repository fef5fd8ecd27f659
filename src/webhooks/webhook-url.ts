import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { ApiError } from '../errors/api-error.js';
import { addressAllowed, classifyAddress } from './target-address.js';

function refused(address: string, range: string): ApiError {
  return new ApiError('WEBHOOK_URL_FORBIDDEN', `url reaches ${address} (${range}); webhooks may only target global unicast addresses`, { field: 'url' });
}

function checkAddress(address: string, allowPrivate: boolean): void {
  const verdict = classifyAddress(address);
  if (!addressAllowed(verdict, allowPrivate)) throw refused(address, verdict.range);
}

function parseTarget(raw: unknown): { url: URL; host: string } {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw new ApiError('WEBHOOK_URL_FORBIDDEN', 'url must be an absolute http(s) URL', { field: 'url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ApiError('WEBHOOK_URL_FORBIDDEN', 'url must be http or https', { field: 'url' });
  return { url, host: url.hostname.replace(/^\[|\]$/g, '') };
}

/**
 * Checks a webhook target when it is created or updated: http(s); a literal IP host must be
 * allowed (see target-address.ts); a host name must resolve, and (unless private targets are
 * allowed, where a name may point elsewhere by delivery time) only to global unicast addresses.
 * Returns the normalised URL; 400 WEBHOOK_URL_FORBIDDEN otherwise. Delivery checks again, on the
 * addresses it connects to (postEvent).
 */
export async function checkWebhookUrl(raw: unknown, allowPrivate: boolean): Promise<string> {
  const { url, host } = parseTarget(raw);
  if (isIP(host) !== 0) {
    checkAddress(host, allowPrivate);
    return url.toString();
  }
  if (allowPrivate) return url.toString();
  let addresses: string[];
  try {
    addresses = (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    throw new ApiError('WEBHOOK_URL_FORBIDDEN', `url host ${host} does not resolve`, { field: 'url' });
  }
  if (addresses.length === 0) throw new ApiError('WEBHOOK_URL_FORBIDDEN', `url host ${host} does not resolve`, { field: 'url' });
  for (const address of addresses) checkAddress(address, allowPrivate);
  return url.toString();
}

type Resolve = (hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;
const resolveAll: Resolve = (hostname, callback) => dnsLookup(hostname, { all: true }, callback);

/**
 * A socket `lookup` that resolves the host and refuses the connection unless every address is
 * allowed: the check and the connection use the same answer, so a name cannot be re-pointed at
 * a private address between the two (DNS rebinding).
 */
export function guardedLookup(allowPrivate: boolean, resolve: Resolve = resolveAll): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, (error, found) => {
      if (error !== null) return callback(error, '', 0);
      const family = options.family === 'IPv4' || options.family === 4 ? 4 : options.family === 'IPv6' || options.family === 6 ? 6 : undefined;
      const addresses = found.filter((entry) => family === undefined || entry.family === family);
      try {
        if (addresses.length === 0) throw new ApiError('WEBHOOK_URL_FORBIDDEN', `url host ${hostname} does not resolve`, { field: 'url' });
        for (const entry of addresses) checkAddress(entry.address, allowPrivate);
      } catch (refusal) {
        return callback(refusal as ApiError, '', 0);
      }
      if (options.all === true) return (callback as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      const [first] = addresses;
      return callback(null, first!.address, first!.family);
    });
  };
}

export interface PostOptions {
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly timeoutMs: number;
  readonly allowPrivate: boolean;
}

/**
 * POSTs a webhook event and answers the receiver's status. The target is checked as at create
 * (a literal IP host) and on every address it resolves to now, through the connection's own
 * lookup. Redirects are not followed; the answer's body is read and discarded.
 */
export async function postEvent(raw: string, options: PostOptions): Promise<number> {
  const { url, host } = parseTarget(raw);
  if (isIP(host) !== 0) checkAddress(host, options.allowPrivate);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<number>((resolve, reject) => {
    const request = send(
      url,
      {
        method: 'POST',
        headers: { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) },
        lookup: guardedLookup(options.allowPrivate),
        // One connection per delivery: no pooled socket outlives the check that opened it.
        agent: false,
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (response) => {
        // Drained to its end, so the timeout covers the whole answer.
        response.on('error', reject);
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.resume();
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}
