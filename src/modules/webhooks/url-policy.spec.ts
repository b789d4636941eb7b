import { createHmac } from 'node:crypto';
import { signWebhook } from './signature.js';
import { isPrivateAddress, publicOnlyLookup, webhookUrlProblem } from './url-policy.js';

describe('webhook URL policy', () => {
  it.each(['127.0.0.1', '10.0.0.1', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '[::1]', 'fe80::1', 'fd12::1', '::ffff:10.0.0.1', '::ffff:7f00:1', '::7f00:1', '64:ff9b::a9fe:a9fe', '2002:7f00:1::', 'fec0::1'])(
    '%s is private',
    (address) => expect(isPrivateAddress(address)).toBe(true),
  );

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', 'example.com'])('%s is not', (address) => expect(isPrivateAddress(address)).toBe(false));

  it('accepts public http(s) URLs, refuses other schemes, and private hosts unless allowed', () => {
    expect(webhookUrlProblem('https://example.com/hook', false)).toBeNull();
    expect(webhookUrlProblem('ftp://example.com/hook', true)).toMatch(/http/);
    expect(webhookUrlProblem('http://localhost:3000/hook', false)).toMatch(/private/);
    expect(webhookUrlProblem('http://localhost:3000/hook', true)).toBeNull();
  });
});

describe('the lookup webhook deliveries connect through', () => {
  const resolve = (host: string, all: boolean) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((done) => publicOnlyLookup(host, { all }, (error, address) => done({ error, address })));

  it('refuses a name that resolves to a private address, in either form of the call', async () => {
    for (const all of [false, true]) expect((await resolve('localhost', all)).error?.code).toBe('EPRIVATEADDRESS');
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
