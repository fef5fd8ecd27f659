import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ApiError } from '../errors/api-error.js';

/** Addresses a webhook may not target unless CORRAL_WEBHOOK_ALLOW_PRIVATE=true. */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) FORBIDDEN.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) FORBIDDEN.addSubnet(network, prefix, 'ipv6');

/** True for loopback, private, link-local, unspecified, multicast and reserved addresses. */
export function isForbiddenAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return FORBIDDEN.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return FORBIDDEN.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Checks a webhook target: http(s), and (unless private targets are allowed) every address
 * the host resolves to is public. Returns the normalised URL; 400 WEBHOOK_URL_FORBIDDEN otherwise.
 */
export async function checkWebhookUrl(raw: unknown, allowPrivate: boolean): Promise<string> {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw new ApiError('WEBHOOK_URL_FORBIDDEN', 'url must be an absolute http(s) URL', { field: 'url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ApiError('WEBHOOK_URL_FORBIDDEN', 'url must be http or https', { field: 'url' });
  if (allowPrivate) return url.toString();
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) === 0 ? (await lookup(host, { all: true })).map((entry) => entry.address) : [host];
  } catch {
    throw new ApiError('WEBHOOK_URL_FORBIDDEN', `url host ${host} does not resolve`, { field: 'url' });
  }
  const bad = addresses.find(isForbiddenAddress);
  if (bad !== undefined || addresses.length === 0) throw new ApiError('WEBHOOK_URL_FORBIDDEN', `url resolves to ${bad ?? 'nothing'}, a private, loopback or link-local address`, { field: 'url' });
  return url.toString();
}
