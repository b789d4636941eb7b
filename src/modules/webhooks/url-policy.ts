import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * IPv6's global unicast space. Everything outside it is reserved by the IETF or special (IPv4-compatible `::/96`, the
 * dummy prefix `100:0:0:1::/64`, ...): no public host has such an address.
 */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * True when an IP address literal (IPv6 with or without brackets) is not a public unicast address: it lies in a range
 * of the IANA IPv4 or IPv6 special-purpose address registries (private, loopback, link-local, CGNAT, documentation,
 * benchmarking, multicast, reserved, IPv4-mapped and -translated, NAT64, 6to4, Teredo, ...; `ipaddr.js` keeps the
 * list, see docs/decisions/0015), or, for IPv6, outside 2000::/3. A host name answers false.
 */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const version = isIP(bare);
  if (version === 0) return false;
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(bare);
  } catch {
    return true; // a literal the library cannot read is not trusted
  }
  if (ip.range() !== 'unicast') return true;
  return version === 6 && !(ip as ipaddr.IPv6).match(GLOBAL_UNICAST_V6);
}

/** A host name without its trailing dots: `localhost.` is `localhost`, `example.com.` is `example.com`. */
function withoutTrailingDots(host: string): string {
  return host.replace(/\.+$/, '');
}

/**
 * Why a webhook URL is refused, or null when it is acceptable: it must parse, be http(s), and (unless private networks
 * are allowed) not name a special-purpose address (isPrivateAddress), nor localhost; a trailing dot changes nothing.
 * Host names are resolved again when delivering (see DeliverWebhookUseCase), since a public name may point at a
 * private address.
 */
export function webhookUrlProblem(value: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http(s) URL';
  const host = withoutTrailingDots(url.hostname.toLowerCase());
  if (!host) return 'must name a host';
  if (allowPrivate) return null;
  if (host === 'localhost' || host.endsWith('.localhost') || isPrivateAddress(host)) {
    return 'must not point at a private, loopback or link-local address';
  }
  return null;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A dns.lookup for outgoing webhook connections that refuses names resolving to a private address: the connection is
 * made to the very addresses checked, so a name that answers a public address to a check and a private one to the
 * connection (DNS rebinding) gets nowhere. A name is resolved without its trailing dots, as at creation.
 */
export function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(withoutTrailingDots(hostname), { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    if (addresses.length === 0 || addresses.some((a) => isPrivateAddress(a.address))) {
      return callback(Object.assign(new Error('the URL resolves to a private address'), { code: 'EPRIVATEADDRESS' }), []);
    }
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}
