import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createCustomer } from '../factories/customer.factory.js';
import { api, createTenant, TestTenant } from '../factories/tenant.factory.js';
import { createTestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';
import { TEST_ADMIN_TOKEN } from '../support/test-env.js';
import { basic, fillPath, Route, routeList, routeName, send } from './routes.js';
import { UNKNOWN_VALUES } from './world.js';

const DEPTH = 10_000;
const deepArray = () => '['.repeat(DEPTH) + ']'.repeat(DEPTH);
const deepObject = () => '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH);
/** Sends bytes as they are (superagent would otherwise serialize a Buffer under a JSON content type). */
const raw = (body: unknown) => body as string;

describe('limits: oversized, deep and huge bodies', () => {
  let app: INestApplication;
  let db: DataSource;
  let tenant: TestTenant;
  let userId: string;

  const v2 = (target: INestApplication = app) => request(target.getHttpServer()).post(`/priv/v2/apps/${tenant.apiKey}/events`).auth(tenant.apiKey, tenant.apiSecret);
  const eventCount = async () => Number((await db.query('SELECT count(*) AS n FROM events WHERE organization_id = $1', [tenant.organizationId]))[0].n);

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    tenant = await createTenant(app);
    userId = (await createCustomer(app, tenant)).id;
  });
  afterAll(() => app.close());

  afterEach(async () => {
    // Whatever a body did, the process answers the next request.
    await request(app.getHttpServer()).get('/health/live').expect(200);
  });

  describe('bodies over BODY_LIMIT', () => {
    let small: INestApplication;
    const LIMIT = 16 * 1024;
    const oversized = () => JSON.stringify({ events: [{ name: 'visit', user_id: userId, context: { note: 'x'.repeat(LIMIT) } }] });

    beforeAll(async () => {
      small = await createTestApp({ bodyLimit: '16kb' });
    });
    afterAll(() => small.close());

    it('answers 413 payload_too_large on the default 1 MiB limit, storing nothing', async () => {
      const before = await eventCount();
      const res = await v2().send({ events: [{ name: 'visit', user_id: userId, context: { note: 'x'.repeat(1024 * 1024) } }] });
      expectError(res, 413, 'payload_too_large');
      expect(await eventCount()).toBe(before);
    });

    it.each<[string, (raw: string) => request.Test]>([
      ['V2 events', (raw) => v2(small).set('Content-Type', 'application/json').send(raw)],
      ['V1 events', (raw) => api(small, tenant).post(`/users/${userId}/events`).set('Content-Type', 'application/json').send(raw)],
      [
        'the admin bootstrap',
        (raw) => request(small.getHttpServer()).post('/admin/v1/organizations').set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`).set('Content-Type', 'application/json').send(raw),
      ],
    ])('answers 413 on %s', async (_label, post) => {
      expectError(await post(oversized()), 413, 'payload_too_large');
    });

    it.each<[string, (data: Buffer) => Buffer]>([
      ['gzip', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
    ])('answers 413 to a %s body that is small on the wire but over the limit inflated', async (encoding, compress) => {
      const before = await eventCount();
      const wire = compress(Buffer.from(oversized()));
      expect(wire.length).toBeLessThan(LIMIT / 4);
      const res = await v2(small).set('Content-Type', 'application/json').set('Content-Encoding', encoding).serialize(raw).send(wire);
      expectError(res, 413, 'payload_too_large');
      expect(await eventCount()).toBe(before);
    });

    it('accepts a compressed body within the limit', async () => {
      const wire = gzipSync(Buffer.from(JSON.stringify({ events: [{ name: 'visit', user_id: userId }] })));
      const res = await v2(small).set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').serialize(raw).send(wire);
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: 'ok' } });
    });

    it('answers 400, not 500, to an unknown content encoding and to a body that is not what its encoding says', async () => {
      expectError(await v2(small).set('Content-Type', 'application/json').set('Content-Encoding', 'compress').send('{}'), 400, 'validation');
      expectError(await v2(small).set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send('{"events":[]}'), 400, 'validation');
    });

    it('answers 413 to a body sent in chunks without a Content-Length', async () => {
      const server = small.getHttpServer();
      const req = request(server).post(`/priv/v2/apps/${tenant.apiKey}/events`).auth(tenant.apiKey, tenant.apiSecret).set('Content-Type', 'application/json');
      req.set('Transfer-Encoding', 'chunked');
      for (let i = 0; i < 8; i++) req.write('x'.repeat(4 * 1024));
      expectError(await req, 413, 'payload_too_large');
    });
  });

  describe(`JSON nested ${DEPTH} levels deep`, () => {
    let routes: Route[];

    beforeAll(async () => {
      routes = (await routeList(app)).filter((route) => route.method === 'post' || route.method === 'put');
    });

    it('answers 400 validation on every route that takes a body (V2: missing_data, as for any invalid V2 body), for nested objects and for nested arrays', async () => {
      expect(routes.length).toBeGreaterThanOrEqual(30);
      const failures: string[] = [];
      for (const route of routes) {
        const path = fillPath(route, { ...UNKNOWN_VALUES, api_key: tenant.apiKey, id: tenant.organizationId });
        const auth = route.path.startsWith('/admin/') ? `Bearer ${TEST_ADMIN_TOKEN}` : basic(tenant.apiKey, tenant.apiSecret);
        for (const raw of [`{"x":${deepObject()}}`, deepArray()]) {
          const res = await send(app, route.method, path).set('Authorization', auth).set('Content-Type', 'application/json').send(raw);
          const code = route.path === '/priv/v2/apps/{api_key}/events' ? 'missing_data' : 'validation';
          if (res.status !== 400 || res.body?.errors?.code !== code) failures.push(`${routeName(route)} → ${res.status} ${res.text.slice(0, 200)}`);
        }
      }
      expect(failures).toEqual([]);
    });

    it('names where the nesting goes too deep', async () => {
      const res = await api(app, tenant).post('/users').set('Content-Type', 'application/json').send(`{"user":{"external_id":"deep","attributes":${deepObject()}}}`);
      expect(expectError(res, 400, 'validation')).toEqual([expect.stringMatching(/^user\.attributes(\.a)+$/)]);
      expect(res.body.errors.message).toMatch(/nested too deeply/);
    });

    it('serves a normal request right after too-deep bodies: the customer it creates is stored and read back', async () => {
      for (const raw of [`{"user":{"external_id":"deep-first","attributes":${deepObject()}}}`, deepArray()]) {
        expectError(await api(app, tenant).post('/users').set('Content-Type', 'application/json').send(raw), 400, 'validation');
      }
      const res = await api(app, tenant).post('/users').send({ user: { external_id: 'after-deep' } }).expect(201);
      expect(res.body).toMatchObject({ status: 'ok', user: { external_id: 'after-deep', available_points: 0 } });
      expect((await api(app, tenant).get('/external/users/after-deep').expect(200)).body.user).toEqual(res.body.user);
      expectError(await api(app, tenant).get('/external/users/deep-first'), 404, 'not_found');
    });
  });

  describe('huge arrays, objects and strings within the limit', () => {
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_v, i) => [`k${i}`, i]));

    it('stores a customer with 1,000 attributes, and answers 413 naming user.attributes for 1,001', async () => {
      await api(app, tenant).post('/users').send({ user: { external_id: 'attrs-1000', attributes: many(1_000) } }).expect(201);
      const res = await api(app, tenant).post('/users').send({ user: { external_id: 'attrs-1001', attributes: many(1_001) } });
      expect(expectError(res, 413, 'payload_too_large')).toEqual(['user.attributes']);
    });

    it.each<[string, number, string, () => request.Test]>([
      ['a V1 events map of 50,000 names', 413, 'payload_too_large', () => api(app, tenant).post(`/users/${userId}/events`).send({ events: many(50_000) })],
      ['a V1 event given 100,000 times', 413, 'payload_too_large', () => api(app, tenant).post(`/users/${userId}/events`).send({ events: { visit: Array(100_000).fill(1) } })],
      ['a V1 event given 101 times', 400, 'validation', () => api(app, tenant).post(`/users/${userId}/events`).send({ events: { visit: Array(101).fill(1) } })],
      ['a V2 batch of 200,000 numbers', 413, 'payload_too_large', () => v2().set('Content-Type', 'application/json').send(`{"events":[${Array(200_000).fill(1).join(',')}]}`)],
      ['an array of 300,000 items where the user object belongs', 413, 'payload_too_large', () => api(app, tenant).post('/users').send({ user: Array(300_000).fill(1) })],
      ['a body that is one array of 300,000 items', 413, 'payload_too_large', () => api(app, tenant).post('/users').send(Array(300_000).fill(1))],
      ['a customer with 100,000 tags', 413, 'payload_too_large', () => api(app, tenant).post('/users').send({ user: { external_id: 'tags', tags: Array(100_000).fill('t') } })],
      ['a customer with 201 tags', 400, 'validation', () => api(app, tenant).post('/users').send({ user: { external_id: 'tags', tags: Array(201).fill('t') } })],
      ['an external_id of 900,000 characters', 400, 'validation', () => api(app, tenant).post('/users').send({ user: { external_id: 'x'.repeat(900_000) } })],
      ['an event name of 900,000 characters', 400, 'validation', () => api(app, tenant).post(`/users/${userId}/events`).send({ events: { ['e'.repeat(900_000)]: 1 } })],
      ['a V2 event name of 900,000 characters', 400, 'missing_data', () => v2().send({ events: [{ name: 'n'.repeat(900_000), user_id: userId }] })],
      [
        'a webhook url of 900,000 characters',
        400,
        'validation',
        () => api(app, tenant).post('/management/webhooks').send({ webhook: { url: `http://127.0.0.1:9/${'a'.repeat(900_000)}`, event_types: ['points.credited'] } }),
      ],
      [
        'a campaign of 11,000 targeting criteria',
        413,
        'payload_too_large',
        () =>
          api(app, tenant)
            .post('/management/campaigns')
            .send({ campaign: { name: 'Wide', starts_at: '2026-01-01T00:00:00Z', ends_at: '2027-01-01T00:00:00Z', targeting: Array(11_000).fill({ field: 'user.tags', op: 'contains', value: 'a' }) } }),
      ],
    ])('answers %s with %i %s', async (_label, status, code, attempt) => {
      expectError(await attempt(), status, code);
    });

    it('stores a 900,000-character attribute value, which is within the limit, exactly', async () => {
      const note = 'n'.repeat(900_000);
      const created = await api(app, tenant).post('/users').send({ user: { external_id: 'long-note', attributes: { note } } }).expect(201);
      expect((await api(app, tenant).get(`/users/${created.body.user.id}`).expect(200)).body.user.attributes.note).toBe(note);
    });
  });
});
