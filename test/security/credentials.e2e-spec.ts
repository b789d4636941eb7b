import type { INestApplication } from '@nestjs/common';
import request, { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { api, createTenant, TestTenant } from '../factories/tenant.factory.js';
import { createCampaign } from '../factories/campaign.factory.js';
import { SettableClock } from '../../src/common/clock.js';
import { createTestApp } from '../support/app.js';
import { TEST_ADMIN_TOKEN } from '../support/test-env.js';
import { basic, fillPath, Route, routeList, routeName, send } from './routes.js';
import { UNKNOWN_VALUES } from './world.js';

const UNAUTHORIZED = { status: 'error', errors: { code: 'unauthorized', message: expect.any(String) } };

/** Calls `route` with `pathKey` in the path and the given Authorization header (none when undefined); writes send {}. */
function call(app: INestApplication, route: Route, pathKey: string, authorization: string | undefined): request.Test {
  const req = send(app, route.method, fillPath(route, { ...UNKNOWN_VALUES, api_key: pathKey }));
  if (authorization !== undefined) req.set('Authorization', authorization);
  return route.method === 'post' || route.method === 'put' ? req.send({}) : req;
}

describe('credentials on every /priv route (contract §3)', () => {
  let app: INestApplication;
  let routes: Route[];
  let tenant: TestTenant;
  let other: TestTenant;
  let inactive: TestTenant;
  /** The answer without any Authorization header; every refusal must be byte for byte the same. */
  let reference: { status: number; body: unknown };

  beforeAll(async () => {
    // Hundreds of refusals from one address in a minute: the failed-attempt budget (checked in 'failed attempts'
    // below) is raised so that every refusal here is the 401 under test.
    app = await createTestApp({ authFailuresPerMinute: 10_000_000 });
    routes = (await routeList(app)).filter((route) => route.path.startsWith('/priv/'));
    [tenant, other, inactive] = [await createTenant(app), await createTenant(app), await createTenant(app)];
    // Both keys verified once, so the cached path is the one checked below too.
    await api(app, tenant).get('/management/campaigns').expect(200);
    await api(app, inactive).get('/management/campaigns').expect(200);
    await request(app.getHttpServer()).delete(`/admin/v1/api_keys/${inactive.apiKey}`).set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`).expect(200);
    const res = await call(app, routes[0], tenant.apiKey, undefined);
    reference = { status: res.status, body: res.body };
  });
  afterAll(() => app.close());

  it('finds the /priv routes in the route list', () => {
    expect(routes.length).toBeGreaterThanOrEqual(60);
    expect(reference).toEqual({ status: 401, body: UNAUTHORIZED });
  });

  it.each<[string, () => [string, string | undefined]]>([
    ['no Authorization header', () => [tenant.apiKey, undefined]],
    ['a wrong secret', () => [tenant.apiKey, basic(tenant.apiKey, 'wrong-secret')]],
    ["another key's secret", () => [tenant.apiKey, basic(tenant.apiKey, other.apiSecret)]],
    ['the right credentials with another key in the path', () => [other.apiKey, basic(tenant.apiKey, tenant.apiSecret)]],
    ['a deactivated key with its right secret', () => [inactive.apiKey, basic(inactive.apiKey, inactive.apiSecret)]],
    ['a malformed Basic header (key:secret not base64-encoded)', () => [tenant.apiKey, `Basic ${tenant.apiKey}:${tenant.apiSecret}`]],
  ])('answers the same 401 to %s, before looking at ids or bodies', async (_label, credentials) => {
    const [pathKey, authorization] = credentials();
    const failures: string[] = [];
    for (const route of routes) {
      const res = await call(app, route, pathKey, authorization);
      if (res.status !== reference.status || JSON.stringify(res.body) !== JSON.stringify(reference.body)) failures.push(`${routeName(route)} → ${res.status} ${res.text}`);
    }
    expect(failures).toEqual([]);
  });

  it("lets the right credentials in right after refusals of the same key, to the organization's own campaign", async () => {
    const campaign = await createCampaign(app, tenant);
    const path = `/priv/v1/apps/${tenant.apiKey}/management/campaigns/${campaign.id}`;
    const refusals = [basic(tenant.apiKey, 'wrong-secret'), basic(tenant.apiKey, other.apiSecret), `Basic ${tenant.apiKey}:${tenant.apiSecret}`, undefined];
    for (const authorization of refusals) {
      const req = request(app.getHttpServer()).get(path);
      const refused = await (authorization === undefined ? req : req.set('Authorization', authorization));
      expect({ status: refused.status, body: refused.body }).toEqual(reference);
    }
    const res = await api(app, tenant).get(`/management/campaigns/${campaign.id}`).expect(200);
    expect(res.body).toMatchObject({ status: 'ok', campaign: { id: campaign.id, name: campaign.name } });
  });

  describe('the verified-key cache and failures', () => {
    it('remembers no failure: a wrong secret first, then the right one works, and a wrong one still fails after', async () => {
      const fresh = await createTenant(app);
      const path = `/priv/v1/apps/${fresh.apiKey}/management/campaigns`;
      const attempt = (secret: string) => request(app.getHttpServer()).get(path).set('Authorization', basic(fresh.apiKey, secret));
      expect((await attempt('not-the-secret')).status).toBe(401);
      expect((await attempt(fresh.apiSecret)).status).toBe(200);
      expect((await attempt('not-the-secret')).body).toEqual(UNAUTHORIZED);
      expect((await attempt(`${fresh.apiSecret} `)).status).toBe(401);
      expect((await attempt(fresh.apiSecret.slice(0, -1))).status).toBe(401);
      expect((await attempt(fresh.apiSecret)).status).toBe(200);
    });

    it('answers the same without the cache (API_KEY_CACHE_SECONDS=0)', async () => {
      const uncached = await createTestApp({ apiKeyCacheSeconds: 0 });
      try {
        const path = `/priv/v1/apps/${tenant.apiKey}/management/campaigns`;
        const attempt = (secret: string) => request(uncached.getHttpServer()).get(path).set('Authorization', basic(tenant.apiKey, secret));
        expect((await attempt(tenant.apiSecret)).status).toBe(200);
        expect((await attempt(other.apiSecret)).body).toEqual(UNAUTHORIZED);
        expect((await attempt(tenant.apiSecret)).status).toBe(200);
      } finally {
        await uncached.close();
      }
    });
  });
});

describe('rate limit and failed attempts', () => {
  const LIMIT = 5;
  let app: INestApplication;
  let tenant: TestTenant;
  let bystander: TestTenant;

  beforeAll(async () => {
    // The budget is per clock minute: the service's clock stands early in one, so the test never straddles two.
    app = await createTestApp({ rateLimitPerMinute: LIMIT }, [], new SettableClock(Math.floor(Date.now() / 60_000) * 60_000 + 1_000));
    [tenant, bystander] = [await createTenant(app), await createTenant(app)];
    // The limiter lets requests through while Redis is not connected yet: make sure it is.
    await request(app.getHttpServer()).get('/health/ready').expect(200);
  });
  afterAll(() => app.close());

  it(`does not count wrong secrets against the key: ${LIMIT} guesses later the key still has its whole budget`, async () => {
    const guess = (secret: string) =>
      request(app.getHttpServer()).get(`/priv/v1/apps/${tenant.apiKey}/management/campaigns`).set('Authorization', basic(tenant.apiKey, secret));
    const refused: Response[] = [];
    for (let i = 0; i < LIMIT; i++) refused.push(await guess(`guess-${i}`));
    expect(refused.map((res) => res.status)).toEqual(Array(LIMIT).fill(401));
    // A refusal tells nothing of the key's usage.
    expect(refused.map((res) => res.headers['x-ratelimit-remaining'])).toEqual(Array(LIMIT).fill(undefined));

    const allowed = await api(app, tenant).get('/management/campaigns').expect(200);
    expect(allowed.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));

    // Another organization's key has a budget of its own.
    await api(app, bystander).get('/management/campaigns').expect(200);
  });
});

describe('admin credentials', () => {
  let app: INestApplication;
  let tenant: TestTenant;
  let adminRoutes: Route[];

  beforeAll(async () => {
    app = await createTestApp();
    tenant = await createTenant(app);
    adminRoutes = (await routeList(app)).filter((route) => route.path.startsWith('/admin/'));
  });
  afterAll(() => app.close());

  const token = TEST_ADMIN_TOKEN;
  const changedLast = () => `${token.slice(0, -1)}${token.endsWith('x') ? 'y' : 'x'}`;

  /** Each admin route with a body it would accept, so that only the token can be what is refused. */
  function attempt(route: Route, authorization: string | undefined): request.Test {
    const req = send(app, route.method, fillPath(route, { id: tenant.organizationId, api_key: tenant.apiKey }));
    if (authorization !== undefined) req.set('Authorization', authorization);
    if (route.path === '/admin/v1/organizations') return req.send({ organization: { name: 'Intruder' }, application: { name: 'Web' } });
    if (route.path.endsWith('/applications')) return req.send({ application: { name: 'Intruder' } });
    return req;
  }

  it('finds every admin route in the route list', () => {
    expect(adminRoutes.map(routeName).sort()).toEqual(['DELETE /admin/v1/api_keys/{api_key}', 'POST /admin/v1/organizations', 'POST /admin/v1/organizations/{id}/applications']);
  });

  it.each<[string, () => string | undefined]>([
    ['no Authorization header', () => undefined],
    ['a wrong token of the same length', () => `Bearer ${'w'.repeat(token.length)}`],
    ['the token with its last character changed', () => `Bearer ${changedLast()}`],
    ['the token less its last character', () => `Bearer ${token.slice(0, -1)}`],
    ['the token with a character added', () => `Bearer ${token}x`],
    ['the token in upper case', () => `Bearer ${token.toUpperCase()}`],
    ['the token as the Basic password', () => basic('admin', token)],
    ["an api key's own credentials", () => basic(tenant.apiKey, tenant.apiSecret)],
  ])('answers 401 unauthorized on every admin route to %s, and changes nothing', async (_label, authorization) => {
    const failures: string[] = [];
    for (const route of adminRoutes) {
      const res = await attempt(route, authorization());
      if (res.status !== 401 || JSON.stringify(res.body) !== JSON.stringify({ status: 'error', errors: { code: 'unauthorized', message: res.body?.errors?.message } })) {
        failures.push(`${routeName(route)} → ${res.status} ${res.text}`);
      }
    }
    expect(failures).toEqual([]);
    const db = app.get(DataSource);
    expect(await db.query(`SELECT id FROM organizations WHERE name = 'Intruder'`)).toEqual([]);
    expect(await db.query(`SELECT id FROM applications WHERE name = 'Intruder'`)).toEqual([]);
    await api(app, tenant).get('/management/campaigns').expect(200);
  });

  it.each<[string, () => string | undefined]>([
    ['no Authorization header', () => undefined],
    ['the token with its last character changed', () => `Bearer ${changedLast()}`],
    ['the token less its last character as the Basic password', () => basic('admin', token.slice(0, -1))],
  ])('answers 401 on the queue dashboard to %s', async (_label, authorization) => {
    const req = request(app.getHttpServer()).get('/admin/queues');
    const value = authorization();
    if (value !== undefined) req.set('Authorization', value);
    const res = await req;
    expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: UNAUTHORIZED });
  });
});
