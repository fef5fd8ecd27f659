import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors/api-error.js';
import { addressAllowed, classifyAddress, type AddressClass } from '../../src/webhooks/target-address.js';
import { guardedLookup, postEvent } from '../../src/webhooks/webhook-url.js';

/** [address, class, why] — `public` is always allowed, `private` only with CORRAL_WEBHOOK_ALLOW_PRIVATE, `refused` never. */
const CASES: [string, AddressClass, string][] = [
  ['8.8.8.8', 'public', 'global IPv4'],
  ['1.1.1.1', 'public', 'global IPv4'],
  ['93.184.216.34', 'public', 'global IPv4'],
  ['2606:4700:4700::1111', 'public', 'global IPv6'],
  ['2a00:1450:4001:80b::200e', 'public', 'global IPv6'],
  ['::ffff:8.8.8.8', 'public', 'IPv4-mapped global'],
  ['64:ff9b::808:808', 'public', 'NAT64 of a global address'],
  ['2002:808:808::1', 'public', '6to4 of a global address'],
  ['2001:0:808:808:0:0:f7f7:f7f7', 'public', 'Teredo, server and client global (client 8.8.8.8 obfuscated)'],
  ['127.0.0.1', 'private', 'loopback'],
  ['127.255.255.254', 'private', 'loopback'],
  ['10.1.2.3', 'private', 'RFC 1918'],
  ['172.16.0.1', 'private', 'RFC 1918'],
  ['192.168.1.1', 'private', 'RFC 1918'],
  ['100.64.0.1', 'private', 'CGNAT'],
  ['169.254.169.254', 'private', 'link-local (cloud metadata)'],
  ['::1', 'private', 'IPv6 loopback'],
  ['fe80::1', 'private', 'IPv6 link-local'],
  ['fd00::1', 'private', 'unique local'],
  ['fec0::1', 'private', 'deprecated site-local'],
  ['::ffff:127.0.0.1', 'private', 'IPv4-mapped loopback'],
  ['::ffff:10.0.0.1', 'private', 'IPv4-mapped private'],
  ['::127.0.0.1', 'private', 'IPv4-compatible loopback'],
  ['::7f00:1', 'private', 'IPv4-compatible loopback, hex form'],
  ['64:ff9b::7f00:1', 'private', 'NAT64 of loopback'],
  ['64:ff9b::a9fe:a9fe', 'private', 'NAT64 of the metadata address'],
  ['2002:7f00:1::', 'private', '6to4 of loopback'],
  ['2002:c0a8:101::1', 'private', '6to4 of RFC 1918'],
  ['2001:0:808:808:0:0:80ff:fffe', 'private', 'Teredo with a loopback client (127.0.0.1 obfuscated)'],
  ['0.0.0.0', 'refused', 'unspecified'],
  ['0.1.2.3', 'refused', '"this network"'],
  ['255.255.255.255', 'refused', 'broadcast'],
  ['224.0.0.1', 'refused', 'multicast'],
  ['239.255.255.250', 'refused', 'multicast'],
  ['192.0.2.1', 'refused', 'documentation TEST-NET-1'],
  ['198.51.100.7', 'refused', 'documentation TEST-NET-2'],
  ['203.0.113.9', 'refused', 'documentation TEST-NET-3'],
  ['198.18.0.1', 'refused', 'benchmarking'],
  ['198.19.255.255', 'refused', 'benchmarking'],
  ['192.0.0.8', 'refused', 'IETF protocol assignments'],
  ['192.88.99.1', 'refused', '6to4 relay anycast'],
  ['240.0.0.1', 'refused', 'reserved class E'],
  ['::', 'refused', 'IPv6 unspecified'],
  ['ff02::1', 'refused', 'IPv6 multicast'],
  ['2001:db8::1', 'refused', 'IPv6 documentation'],
  ['3fff::1', 'refused', 'IPv6 documentation (RFC 9637)'],
  ['2001:2::1', 'refused', 'IPv6 benchmarking'],
  ['100::1', 'refused', 'IPv6 discard'],
  ['2001:10::1', 'refused', 'ORCHID'],
  ['5f00::1', 'refused', 'segment routing'],
  ['4000::1', 'refused', 'unallocated IPv6'],
  ['::ffff:192.0.2.1', 'refused', 'IPv4-mapped documentation'],
  ['::192.0.2.1', 'refused', 'IPv4-compatible documentation'],
  ['64:ff9b::c000:201', 'refused', 'NAT64 of documentation'],
  ['64:ff9b:1::7f00:1', 'refused', 'local-use NAT64 (embedded address cannot be told)'],
  ['2002:c000:201::', 'refused', '6to4 of documentation'],
  ['2002::', 'refused', '6to4 of 0.0.0.0'],
  ['2001:0:c000:201::f7f7:f7f7', 'refused', 'Teredo with a documentation server'],
  ['example.com', 'refused', 'not an address'],
];

describe('refuses webhook targets in reserved ranges', () => {
  it.each(CASES)('%s is %s (%s)', (address, expected) => {
    expect(classifyAddress(address).class).toBe(expected);
  });

  it.each(CASES)('%s: allowed by default only when public, with private targets allowed only when not refused (%s)', (address, expected) => {
    const verdict = classifyAddress(address);
    expect(addressAllowed(verdict, false)).toBe(expected === 'public');
    expect(addressAllowed(verdict, true)).toBe(expected !== 'refused');
  });
});

function lookupThrough(answer: LookupAddress[], allowPrivate: boolean, all: boolean): Promise<unknown> {
  const lookup = guardedLookup(allowPrivate, (_hostname, callback) => callback(null, answer));
  return new Promise((resolve, reject) =>
    lookup('hook.example', { all }, (error: NodeJS.ErrnoException | null, address: unknown) => (error === null ? resolve(address) : reject(error))),
  );
}

describe('refuses webhook targets in reserved ranges at delivery, on the addresses the connection uses', () => {
  it.each([
    ['a documentation address, even with private targets allowed', [{ address: '192.0.2.1', family: 4 }], true],
    ['a loopback address by default', [{ address: '127.0.0.1', family: 4 }], false],
    ['a name with one public and one NAT64-of-loopback address', [{ address: '8.8.8.8', family: 4 }, { address: '64:ff9b::7f00:1', family: 6 }], false],
    ['a name that resolves to nothing', [], false],
  ] as const)('refuses %s', async (_what, answer, allowPrivate) => {
    for (const all of [false, true]) {
      const error = await lookupThrough([...answer], allowPrivate, all).then(() => undefined, (cause: unknown) => cause);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe('WEBHOOK_URL_FORBIDDEN');
    }
  });

  it('connects to the checked address of a public name', async () => {
    expect(await lookupThrough([{ address: '8.8.8.8', family: 4 }], false, false)).toBe('8.8.8.8');
    expect(await lookupThrough([{ address: '2606:4700:4700::1111', family: 6 }], false, true)).toEqual([{ address: '2606:4700:4700::1111', family: 6 }]);
  });

  it('never sends an event to a name that resolves to loopback unless private targets are allowed', async () => {
    let received = 0;
    const server = createServer((request, response) => {
      received += 1;
      request.resume();
      request.on('end', () => response.end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://localhost:${(server.address() as AddressInfo).port}/hook`;
      const post = (allowPrivate: boolean) => postEvent(url, { headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 5000, allowPrivate });
      await expect(post(false)).rejects.toMatchObject({ code: 'WEBHOOK_URL_FORBIDDEN' });
      await expect(postEvent('http://[::ffff:127.0.0.1]:1/', { headers: {}, body: '{}', timeoutMs: 5000, allowPrivate: false })).rejects.toMatchObject({ code: 'WEBHOOK_URL_FORBIDDEN' });
      expect(received).toBe(0);
      expect(await post(true)).toBe(200);
      expect(received).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
