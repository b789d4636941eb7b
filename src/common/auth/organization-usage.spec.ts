import { OrganizationUsage, REQUEST_BYTES } from './organization-usage.js';

describe('OrganizationUsage', () => {
  let now = 0;
  const usage = () => new OrganizationUsage(() => now);
  beforeEach(() => {
    now = 0;
  });

  it('counts each request’s body and REQUEST_BYTES, and names the organization that asked the most', () => {
    const u = usage();
    expect(u.top()).toBeNull();
    u.add(1, 100_000);
    u.add(2, 0);
    u.add(3, 500);
    const total = 100_500 + 3 * REQUEST_BYTES;
    expect(u.top()).toEqual({ organizationId: 1, bytes: 100_000 + REQUEST_BYTES, share: (100_000 + REQUEST_BYTES) / total });
    u.add(3, 200_000);
    expect(u.top()).toEqual({ organizationId: 3, bytes: 200_500 + 2 * REQUEST_BYTES, share: (200_500 + 2 * REQUEST_BYTES) / (total + 200_000 + REQUEST_BYTES) });
  });

  it('halves every second and forgets an organization once its usage falls under a byte', () => {
    const u = usage();
    u.add(1, 4096 - REQUEST_BYTES);
    u.add(2, 0);
    now = 1000;
    expect(u.top()).toEqual({ organizationId: 1, bytes: 2048, share: 2048 / (2048 + 512) });
    now = 2000;
    u.add(2, 8192 - REQUEST_BYTES - 256); // 256 left of its first request
    expect(u.top()).toEqual({ organizationId: 2, bytes: 8192, share: 8192 / (8192 + 1024) });
    now = 2000 + 13_000; // 1,024 × 2^-13 < 1, 8,192 × 2^-13 = 1
    expect(u.top()).toMatchObject({ organizationId: 2, bytes: 1 });
    now += 1;
    expect(u.top()).toBeNull();
  });
});
