import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * What a webhook may reach at an address:
 * - `public`: global unicast, always allowed;
 * - `private`: loopback, RFC 1918, CGNAT, link-local, unique-local and site-local, allowed only
 *   with CORRAL_WEBHOOK_ALLOW_PRIVATE=true (local testing, private networks);
 * - `refused`: everything else (unspecified, broadcast, multicast, documentation, benchmarking,
 *   reserved, anycast service ranges, unallocated IPv6, local-use NAT64), never allowed.
 */
export type AddressClass = 'public' | 'private' | 'refused';

export interface AddressVerdict {
  readonly class: AddressClass;
  /** The range that decided it, for the error message ("loopback", "reserved", "6to4 of private" …). */
  readonly range: string;
}

const PRIVATE_V4 = new Set<string>(['private', 'loopback', 'linkLocal', 'carrierGradeNat']);
const PRIVATE_V6 = new Set<string>(['loopback', 'linkLocal', 'uniqueLocal', 'deprecatedSiteLocal']);
/** IANA's global unicast block; IPv6 outside it (and outside the private ranges) is not routable. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parse('2000::');

function ofV4(address: ipaddr.IPv4): AddressVerdict {
  const range = address.range();
  if (range === 'unicast') return { class: 'public', range };
  return { class: PRIVATE_V4.has(range) ? 'private' : 'refused', range };
}

function v4At(parts: readonly number[], high: number, xor = 0): ipaddr.IPv4 {
  const word = (((parts[high]! << 16) | parts[high + 1]!) ^ xor) >>> 0;
  return new ipaddr.IPv4([word >>> 24, (word >>> 16) & 255, (word >>> 8) & 255, word & 255]);
}

/** An IPv4 address carried inside an IPv6 one: the IPv6 form is treated as that IPv4 address. */
function embedded(via: string, inner: AddressVerdict): AddressVerdict {
  return { class: inner.class, range: `${via} of ${inner.range}` };
}

const WORSE: Record<AddressClass, number> = { public: 0, private: 1, refused: 2 };

function ofV6(address: ipaddr.IPv6): AddressVerdict {
  const { parts } = address;
  const range = address.range();
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return embedded(range, ofV4(v4At(parts, 6)));
    case 'rfc6052': {
      // 64:ff9b::/96 carries the IPv4 address in its last 32 bits; the local-use 64:ff9b:1::/48
      // (RFC 8215) places it where the local translator chooses, so it cannot be told.
      if (parts.slice(2, 6).every((part) => part === 0)) return embedded('NAT64', ofV4(v4At(parts, 6)));
      return { class: 'refused', range: 'local-use NAT64' };
    }
    case '6to4': // 2002:AABB:CCDD::/48 is the 6to4 site of a.b.c.d
      return embedded('6to4', ofV4(v4At(parts, 1)));
    case 'teredo': {
      // 2001:0:SSSS:SSSS:flags:port:~CCCC:~CCCC — server and (obfuscated) client addresses.
      const server = ofV4(v4At(parts, 2));
      const client = ofV4(v4At(parts, 6, 0xffffffff));
      return embedded('Teredo', WORSE[server.class] >= WORSE[client.class] ? server : client);
    }
    case 'unicast':
      // The deprecated IPv4-compatible form ::a.b.c.d (RFC 4291 §2.5.5.1) is that IPv4 address.
      if (parts.slice(0, 6).every((part) => part === 0)) return embedded('IPv4-compatible', ofV4(v4At(parts, 6)));
      if (address.match(GLOBAL_UNICAST_V6, 3)) return { class: 'public', range };
      return { class: 'refused', range: 'unallocated' };
    default:
      return { class: PRIVATE_V6.has(range) ? 'private' : 'refused', range };
  }
}

/** Classifies an IP address literal (IPv4, IPv6, with or without a zone); not an address → refused. */
export function classifyAddress(text: string): AddressVerdict {
  if (isIP(text) === 0) return { class: 'refused', range: 'not an IP address' };
  const address = ipaddr.parse(text);
  return address.kind() === 'ipv4' ? ofV4(address as ipaddr.IPv4) : ofV6(address as ipaddr.IPv6);
}

/** Whether a webhook may connect to an address of this verdict (see AddressClass). */
export function addressAllowed(verdict: AddressVerdict, allowPrivate: boolean): boolean {
  return verdict.class === 'public' || (verdict.class === 'private' && allowPrivate);
}
