import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { createTestApp } from './support/app.js';
import { TEST_ADMIN_TOKEN } from './support/test-env.js';
import { addApplication, api, basic, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCustomer } from './factories/customer.factory.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;


describe('api key authentication', () => {
  let app: INestApplication;
  let tenant: TestTenant;
  let other: TestTenant;
  let unused: TestTenant;
  let inactive: TestTenant;
  let userId: string;
  /** The answer to a request without any Authorization header: every other 401 must be identical to it. */
  let reference: { status: number; body: unknown };

  const get = (pathKey: string, authorization?: string) => {
    const req = request(app.getHttpServer()).get(`/priv/v1/apps/${pathKey}/users/${userId}`);
    return authorization === undefined ? req : req.set('Authorization', authorization);
  };

  beforeAll(async () => {
    app = await createTestApp();
    [tenant, other, unused, inactive] = await Promise.all([createTenant(app), createTenant(app), createTenant(app), createTenant(app)]);
    userId = (await createCustomer(app, tenant)).id;
    await api(app, tenant).get(`/users/${userId}`).expect(200);
    // The inactive key was used (and so verified) before it was deactivated.
    await api(app, inactive).get('/external/users/none').expect(404);
    await request(app.getHttpServer()).delete(`/admin/v1/api_keys/${inactive.apiKey}`).set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`).expect(200);
    const res = await get(tenant.apiKey);
    reference = { status: res.status, body: res.body };
  });
  afterAll(() => app.close());

  it('answers a request without an Authorization header with 401 unauthorized in the error envelope', () => {
    expect(reference).toEqual({ status: 401, body: { status: 'error', errors: { code: 'unauthorized', message: expect.any(String) } } });
  });

  it.each([
    ['a wrong secret for a key already verified', () => get(tenant.apiKey, basic(tenant.apiKey, 'wrong-secret'))],
    ['a wrong secret for a key not verified yet', () => get(unused.apiKey, basic(unused.apiKey, `${unused.apiSecret}x`))],
    ['an unknown api key in the path and as the Basic user', () => get('0123456789abcdef0123456789abcdef', basic('0123456789abcdef0123456789abcdef', tenant.apiSecret))],
    ["a Basic user differing from the path's key (the other key's valid credentials)", () => get(tenant.apiKey, basic(other.apiKey, other.apiSecret))],
    ["a Basic user differing from the path's key, with the path key's own secret", () => get(tenant.apiKey, basic(other.apiKey, tenant.apiSecret))],
    ["a path key differing from the Basic user (the path names the other organization's key)", () => get(other.apiKey, basic(tenant.apiKey, tenant.apiSecret))],
    ['a deactivated key with its right secret', () => get(inactive.apiKey, basic(inactive.apiKey, inactive.apiSecret))],
    ['a Basic header that is not base64', () => get(tenant.apiKey, 'Basic not*base64!')],
    ['a Basic header without a colon', () => get(tenant.apiKey, `Basic ${Buffer.from(tenant.apiKey).toString('base64')}`)],
    ['a Basic scheme without credentials', () => get(tenant.apiKey, 'Basic')],
    ['the secret as a Bearer token', () => get(tenant.apiKey, `Bearer ${tenant.apiSecret}`)],
    ['an empty secret', () => get(tenant.apiKey, basic(tenant.apiKey, ''))],
  ])('answers the same 401 body for %s', async (_case, send) => {
    const res = await send();
    expect({ status: res.status, body: res.body }).toEqual(reference);
  });

  it('still accepts the right credentials after all those failures', async () => {
    const res = await get(tenant.apiKey, basic(tenant.apiKey, tenant.apiSecret)).expect(200);
    expect(res.body.user.id).toBe(userId);
  });

  it('carries x-request-id on 401 answers: a fresh UUID, or the sane id the caller sent', async () => {
    const generated = await get(tenant.apiKey).expect(401);
    expect(generated.headers['x-request-id']).toMatch(UUID);
    const echoed = await get(tenant.apiKey, basic(tenant.apiKey, 'wrong')).set('x-request-id', 'client-req-42').expect(401);
    expect(echoed.headers['x-request-id']).toBe('client-req-42');
  });
});

describe('organization isolation', () => {
  let app: INestApplication;
  let orgA: TestTenant;
  let orgB: TestTenant;
  let customer: { id: string; external_id: string };
  let original: unknown;

  beforeAll(async () => {
    app = await createTestApp();
    [orgA, orgB] = await Promise.all([createTenant(app), createTenant(app)]);
    customer = await createCustomer(app, orgA, { tags: ['vip'], attributes: { plan: 'gold' } });
    original = (await api(app, orgA).get(`/users/${customer.id}`).expect(200)).body;
  });
  afterAll(() => app.close());

  it.each([
    ['GET by user_id', () => api(app, orgB).get(`/users/${customer.id}`)],
    ['GET by external_id', () => api(app, orgB).get(`/external/users/${customer.external_id}`)],
    ['PUT by user_id', () => api(app, orgB).put(`/users/${customer.id}`).send({ user: { tags: ['stolen'], attributes: { plan: 'none' } } })],
    ['PUT by external_id', () => api(app, orgB).put(`/external/users/${customer.external_id}`).send({ user: { tags: ['stolen'], time_zone: 'Asia/Tokyo' } })],
    ['GET the timeline by user_id', () => api(app, orgB).get(`/users/${customer.id}/timeline`)],
  ])("answers 404 not_found (never 403) to another organization's %s", async (_case, send) => {
    const res = await send();
    expect({ status: res.status, body: res.body }).toEqual({
      status: 404,
      body: { status: 'error', errors: { code: 'not_found', message: expect.any(String) } },
    });
  });

  it('leaves the customer unchanged for its own organization', async () => {
    const byId = await api(app, orgA).get(`/users/${customer.id}`).expect(200);
    expect(byId.body).toEqual(original);
    const byExternalId = await api(app, orgA).get(`/external/users/${customer.external_id}`).expect(200);
    expect(byExternalId.body).toEqual(original);
  });

  it("lets another organization reuse the external_id for its own, separate customer", async () => {
    const mine = await createCustomer(app, orgB, { external_id: customer.external_id });
    expect(mine.id).not.toBe(customer.id);
    const res = await api(app, orgB).get(`/external/users/${customer.external_id}`).expect(200);
    expect(res.body.user.id).toBe(mine.id);
    const theirs = await api(app, orgA).get(`/external/users/${customer.external_id}`).expect(200);
    expect(theirs.body).toEqual(original);
  });
});

describe('rate limit per api key', () => {
  const LIMIT = 3;
  let app: INestApplication;
  let first: TestTenant;
  let second: TestTenant;

  beforeAll(async () => {
    app = await createTestApp({ rateLimitPerMinute: LIMIT });
    first = await createTenant(app);
    second = await addApplication(app, first);
    // The limiter lets requests through while Redis is not connected yet: make sure it is.
    await request(app.getHttpServer()).get('/health/ready').expect(200);
  });
  afterAll(() => app.close());

  it(`answers 429 rate_limited to the request after the first ${LIMIT} in a minute, and not to another key`, async () => {
    // The budget is per clock minute: do not start right before the minute turns.
    const leftInMinute = 60_000 - (Date.now() % 60_000);
    if (leftInMinute < 5_000) await new Promise((resolve) => setTimeout(resolve, leftInMinute + 100));

    const created = await api(app, first).post('/users').send({ user: { external_id: 'limited' } }).expect(201);
    const userId = created.body.user.id as string;
    const allowed = [created, await api(app, first).get(`/users/${userId}`).expect(200), await api(app, first).get('/external/users/limited').expect(200)];
    expect(allowed.map((res) => res.headers['x-ratelimit-limit'])).toEqual([String(LIMIT), String(LIMIT), String(LIMIT)]);
    expect(allowed.map((res) => res.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0']);

    const limited = await api(app, first).get(`/users/${userId}`).expect(429);
    expect(limited.body).toEqual({ status: 'error', errors: { code: 'rate_limited', message: expect.any(String) } });
    expect(limited.headers['x-ratelimit-limit']).toBe(String(LIMIT));
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);

    const otherKey = await api(app, second).get(`/users/${userId}`).expect(200);
    expect(otherKey.body.user.id).toBe(userId);
    expect(otherKey.headers['x-ratelimit-limit']).toBe(String(LIMIT));
  });
});
