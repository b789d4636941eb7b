import type { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { createTestApp } from '../support/app.js';
import { TEST_ADMIN_TOKEN } from '../support/test-env.js';
import { basic, createTenant, type TestTenant } from '../factories/tenant.factory.js';
import { awayFromMinuteTurn } from '../support/minute-budget.js';

/**
 * Contract §18, failed authentication: at most AUTH_FAILURES_PER_MINUTE failures a minute per source address over
 * every key (made-up keys each have a budget of their own; the address has one), and the admin token the same; past
 * it, 429 rate_limited. The probe that found it: 400 requests naming random keys from one address, all 401, both
 * cores busy hashing; 100 wrong admin tokens, 100 × 401.
 */
const FAILURES = 5;
const RATE_LIMITED = { status: 'error', errors: { code: 'rate_limited', message: expect.any(String) } };
const UNAUTHORIZED = { status: 'error', errors: { code: 'unauthorized', message: expect.any(String) } };


describe('failed authentication per source address over every credential (contract §18)', () => {
  let app: INestApplication;
  let tenant: TestTenant;

  beforeAll(async () => {
    app = await createTestApp({ authFailuresPerMinute: FAILURES, trustProxy: 1 });
    tenant = await createTenant(app);
  });
  afterAll(() => app.close());

  /** A request from `from` (the client the proxy in front, TRUST_PROXY=1, names in X-Forwarded-For). */
  const campaigns = (key: string, secret: string, from: string) =>
    request(app.getHttpServer()).get(`/priv/v1/apps/${key}/management/campaigns`).set('Authorization', basic(key, secret)).set('X-Forwarded-For', from);
  const madeUpKey = () => randomBytes(16).toString('hex');

  it(`random keys with wrong secrets from one address: ${FAILURES} × 401, then 429 with retry-after, also for a real key`, async () => {
    await awayFromMinuteTurn();
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const key = madeUpKey();
      const res = await campaigns(key, 'wrong', '203.0.113.50');
      statuses.push(res.status);
      expect(res.body).toEqual(res.status === 401 ? UNAUTHORIZED : RATE_LIMITED);
      if (res.status === 429) expect(res.headers['retry-after']).toMatch(/^\d+$/);
    }
    expect(statuses).toEqual([...Array(FAILURES).fill(401), ...Array(40 - FAILURES).fill(429)]);
    // That address's first authentication of a real key (not verified before): 429 too, until the minute turns.
    expect((await campaigns(tenant.apiKey, tenant.apiSecret, '203.0.113.50')).body).toEqual(RATE_LIMITED);
    // Another address is not affected.
    await campaigns(tenant.apiKey, tenant.apiSecret, '198.51.100.50').expect(200);
  });

  it(`wrong admin tokens from one address: ${FAILURES} × 401, then 429 even for the right token; other addresses get in`, async () => {
    await awayFromMinuteTurn();
    const unknownKey = madeUpKey();
    const revoke = (token: string, from: string) =>
      request(app.getHttpServer()).delete(`/admin/v1/api_keys/${unknownKey}`).set('Authorization', `Bearer ${token}`).set('X-Forwarded-For', from);
    const statuses: number[] = [];
    for (let i = 0; i < FAILURES + 3; i++) statuses.push((await revoke(`wrong-token-${i}-0123456789`, '203.0.113.60')).status);
    expect(statuses).toEqual([...Array(FAILURES).fill(401), 429, 429, 429]);
    const right = await revoke(TEST_ADMIN_TOKEN, '203.0.113.60');
    expect({ status: right.status, body: right.body }).toEqual({ status: 429, body: RATE_LIMITED });
    expect(right.headers['retry-after']).toMatch(/^\d+$/);
    // From elsewhere the right token is let in (the key does not exist: 404, past the guard).
    expect((await revoke(TEST_ADMIN_TOKEN, '198.51.100.60')).status).toBe(404);
  });

  it('the queue dashboard counts wrong tokens the same way', async () => {
    await awayFromMinuteTurn();
    const dashboard = (password: string, from: string) =>
      request(app.getHttpServer()).get('/admin/queues').set('Authorization', basic('admin', password)).set('X-Forwarded-For', from);
    for (let i = 0; i < FAILURES; i++) {
      const res = await dashboard(`guess-${i}`, '203.0.113.70');
      expect({ status: res.status, body: res.body, challenge: res.headers['www-authenticate'] }).toEqual({ status: 401, body: UNAUTHORIZED, challenge: 'Basic realm="queues"' });
    }
    const limited = await dashboard(TEST_ADMIN_TOKEN, '203.0.113.70');
    expect({ status: limited.status, body: limited.body }).toEqual({ status: 429, body: RATE_LIMITED });
    expect((await dashboard(TEST_ADMIN_TOKEN, '198.51.100.70')).status).toBe(200);
  });
});
