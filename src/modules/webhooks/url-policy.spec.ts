import { createHmac } from 'node:crypto';
import { signWebhook } from './signature.js';
import { isPrivateAddress, publicOnlyLookup, webhookUrlProblem } from './url-policy.js';

/** One address in each range of the IANA IPv4 and IPv6 special-purpose registries (and multicast), by range. */
const SPECIAL_PURPOSE: Array<[string, string]> = [
  ['0.0.0.0/8 "this network"', '0.1.2.3'],
  ['10.0.0.0/8 private', '10.0.0.1'],
  ['100.64.0.0/10 shared (CGNAT)', '100.127.255.254'],
  ['127.0.0.0/8 loopback', '127.0.0.1'],
  ['169.254.0.0/16 link-local', '169.254.169.254'],
  ['172.16.0.0/12 private', '172.31.255.255'],
  ['192.0.0.0/24 IETF protocol assignments', '192.0.0.9'],
  ['192.0.2.0/24 documentation (TEST-NET-1)', '192.0.2.1'],
  ['192.31.196.0/24 AS112-v4', '192.31.196.1'],
  ['192.52.193.0/24 AMT', '192.52.193.1'],
  ['192.88.99.0/24 6to4 relay anycast', '192.88.99.2'],
  ['192.168.0.0/16 private', '192.168.0.1'],
  ['192.175.48.0/24 direct delegation AS112', '192.175.48.1'],
  ['198.18.0.0/15 benchmarking', '198.18.0.1'],
  ['198.18.0.0/15 benchmarking (its second half)', '198.19.255.254'],
  ['198.51.100.0/24 documentation (TEST-NET-2)', '198.51.100.7'],
  ['203.0.113.0/24 documentation (TEST-NET-3)', '203.0.113.7'],
  ['224.0.0.0/4 multicast', '239.255.255.250'],
  ['240.0.0.0/4 reserved', '240.0.0.1'],
  ['255.255.255.255/32 limited broadcast', '255.255.255.255'],
  ['::/128 unspecified', '::'],
  ['::1/128 loopback', '::1'],
  ['::ffff:0:0/96 IPv4-mapped (of a private address)', '::ffff:10.0.0.1'],
  ['::ffff:0:0/96 IPv4-mapped (of a public address)', '::ffff:8.8.8.8'],
  ['::ffff:0:0/96 IPv4-mapped, hex form', '::ffff:7f00:1'],
  ['::ffff:0:0:0/96 IPv4-translated', '::ffff:0:127.0.0.1'],
  ['::/96 IPv4-compatible (deprecated)', '::7f00:1'],
  ['64:ff9b::/96 NAT64', '64:ff9b::a9fe:a9fe'],
  ['64:ff9b:1::/48 local-use NAT64', '64:ff9b:1::8.8.8.8'],
  ['100::/64 discard-only', '100::1'],
  ['100:0:0:1::/64 dummy prefix', '100:0:0:1::1'],
  ['2001::/23 IETF protocol assignments', '2001:1::1'],
  ['2001::/32 Teredo', '2001:0:a9fe:a9fe::'],
  ['2001:2::/48 benchmarking', '2001:2::1'],
  ['2001:3::/32 AMT', '2001:3::1'],
  ['2001:4:112::/48 AS112-v6', '2001:4:112::1'],
  ['2001:10::/28 ORCHID (deprecated)', '2001:10::1'],
  ['2001:20::/28 ORCHIDv2', '2001:20::1'],
  ['2001:30::/28 drone remote ID', '2001:30::1'],
  ['2001:db8::/32 documentation', '2001:db8::1'],
  ['2002::/16 6to4', '2002:7f00:1::'],
  ['2620:4f:8000::/48 direct delegation AS112', '2620:4f:8000::1'],
  ['3fff::/20 documentation', '3fff::1'],
  ['5f00::/16 segment routing (SRv6) SIDs', '5f00::1'],
  ['fc00::/7 unique local', 'fd12::1'],
  ['fe80::/10 link-local', 'fe80::1'],
  ['fec0::/10 site-local (deprecated)', 'fec0::1'],
  ['ff00::/8 multicast', 'ff02::1'],
];

/** The URL for an address literal: IPv6 in brackets. */
const urlOf = (address: string) => (address.includes(':') ? `http://[${address}]/hook` : `http://${address}/hook`);

const REFUSED = /private/;

describe('webhook URL policy', () => {
  it.each(SPECIAL_PURPOSE)('refuses %s (%s)', (_range, address) => {
    expect(isPrivateAddress(address)).toBe(true);
    expect(webhookUrlProblem(urlOf(address), false)).toMatch(REFUSED);
  });

  it.each(['http://[::ffff:0:127.0.0.1]/', 'http://[2001:0:a9fe:a9fe::]/', 'http://192.0.2.1/', 'http://198.18.0.1/', 'http://localhost./'])(
    'refuses %s, and accepts it when private networks are allowed',
    (url) => {
      expect(webhookUrlProblem(url, false)).toMatch(REFUSED);
      expect(webhookUrlProblem(url, true)).toBeNull();
    },
  );

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '192.0.3.1', '198.20.0.1', '2606:4700::1111', '2a00:1450:4007::200e', '2001:4860:4860::8888'])(
    'accepts the public address %s',
    (address) => {
      expect(isPrivateAddress(address)).toBe(false);
      expect(webhookUrlProblem(urlOf(address), false)).toBeNull();
    },
  );

  it('answers false for a host name, and true for an address literal it cannot read', () => {
    expect(isPrivateAddress('example.com')).toBe(false);
    expect(isPrivateAddress('[::1]')).toBe(true);
    expect(isPrivateAddress('2606:4700::1%a-b')).toBe(true);
  });

  it('judges a host name with trailing dots as without them', () => {
    for (const url of ['http://localhost./hook', 'http://LOCALHOST../hook', 'http://api.localhost./hook', 'http://127.0.0.1./hook']) {
      expect(webhookUrlProblem(url, false)).toMatch(REFUSED);
    }
    expect(webhookUrlProblem('https://example.com./hook', false)).toBeNull();
    expect(webhookUrlProblem('http://./hook', true)).toMatch(/host/);
  });

  it('accepts public http(s) URLs, refuses other schemes, and private hosts unless allowed', () => {
    expect(webhookUrlProblem('https://example.com/hook', false)).toBeNull();
    expect(webhookUrlProblem('ftp://example.com/hook', true)).toMatch(/http/);
    expect(webhookUrlProblem('http://localhost:3000/hook', false)).toMatch(REFUSED);
    expect(webhookUrlProblem('http://localhost:3000/hook', true)).toBeNull();
  });
});

describe('the lookup webhook deliveries connect through', () => {
  const resolve = (host: string, all: boolean) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((done) => publicOnlyLookup(host, { all }, (error, address) => done({ error, address })));

  it('refuses a name that resolves to a private address, in either form of the call', async () => {
    for (const all of [false, true]) expect((await resolve('localhost', all)).error?.code).toBe('EPRIVATEADDRESS');
  });

  it('resolves a name with a trailing dot as without it', async () => {
    expect((await resolve('localhost.', false)).error?.code).toBe('EPRIVATEADDRESS');
  });

  it('passes a lookup error through', async () => {
    expect((await resolve('no-such-host.invalid', false)).error?.code).toMatch(/ENOTFOUND|EAI_AGAIN/);
  });
});

describe('webhook signature', () => {
  it('is v1= and the hex HMAC-SHA256 of "<timestamp>.<body>"', () => {
    const expected = createHmac('sha256', 'whsec_x').update('1700000000.{"a":1}').digest('hex');
    expect(signWebhook('whsec_x', 1700000000, '{"a":1}')).toBe(`v1=${expected}`);
  });
});
