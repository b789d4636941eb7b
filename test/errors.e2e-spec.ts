import type { INestApplication } from '@nestjs/common';
import request, { Response } from 'supertest';
import { createTestApp } from './support/app.js';
import { expectError } from './support/errors.js';
import { TEST_ADMIN_TOKEN } from './support/test-env.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCustomer } from './factories/customer.factory.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What must never reach a client: stack frames, SQL, driver error names. */
function expectNoInternals(res: Response): void {
  const text = res.text;
  expect(text).not.toMatch(/\n\s*at \S/);
  expect(text).not.toMatch(/\bat .+\(?\/.+:\d+:\d+\)?/);
  expect(text).not.toMatch(/SELECT|INSERT INTO|UPDATE "?\w+"? SET|DELETE FROM/);
  expect(text).not.toMatch(/QueryFailedError|duplicate key|violates|node_modules|\.ts:\d+|\.js:\d+/);
}

describe('errors (contract §2)', () => {
  let app: INestApplication;
  let tenant: TestTenant;

  beforeAll(async () => {
    app = await createTestApp();
    tenant = await createTenant(app);
  });
  afterAll(() => app.close());

  const server = () => request(app.getHttpServer());

  describe('malformed JSON', () => {
    it('answers 400 invalid_json on a /priv route', async () => {
      const res = await api(app, tenant).post('/users').set('Content-Type', 'application/json').send('{"user": {"external_id": "c-1",');
      expectError(res, 400, 'invalid_json');
      expectNoInternals(res);
    });

    it('answers 400 invalid_json on the admin API', async () => {
      const res = await server()
        .post('/admin/v1/organizations')
        .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
        .set('Content-Type', 'application/json')
        .send("{organization: 'Acme'}");
      expectError(res, 400, 'invalid_json');
      expectNoInternals(res);
    });
  });

  describe('body limit', () => {
    let small: INestApplication;

    beforeAll(async () => {
      small = await createTestApp({ bodyLimit: '1kb' });
    });
    afterAll(() => small.close());

    it('answers 413 payload_too_large for a body over the configured limit', async () => {
      const res = await api(small, tenant)
        .post('/users')
        .send({ user: { external_id: 'big', attributes: { note: 'x'.repeat(2048) } } });
      expectError(res, 413, 'payload_too_large');
      expect(res.headers['x-request-id']).toEqual(expect.any(String));
      expectNoInternals(res);
      expect((await api(small, tenant).get('/external/users/big')).status).toBe(404);
    });

    it('still accepts a body under the limit', async () => {
      const res = await api(small, tenant).post('/users').send({ user: { external_id: `small-${Date.now()}` } });
      expect(res.status).toBe(201);
    });

    it('accepts on the default app a body the small app refuses', async () => {
      const res = await api(app, tenant)
        .post('/users')
        .send({ user: { external_id: `medium-${Date.now()}`, attributes: { note: 'x'.repeat(2048) } } });
      expect(res.status).toBe(201);
    });
  });

  describe('unknown routes', () => {
    it.each([
      ['GET', '/nope'],
      ['POST', '/priv/v1/apps/abc/nothing-here'],
      ['DELETE', '/health/live'],
    ])('answers 404 not_found in the envelope for %s %s', async (method, path) => {
      const res = await server()[method.toLowerCase() as 'get' | 'post' | 'delete'](path);
      expectError(res, 404, 'not_found');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expectNoInternals(res);
    });
  });

  describe('x-request-id', () => {
    it.each<[string, () => request.Test, number]>([
      ['200', () => server().get('/health/live'), 200],
      [
        '201',
        () =>
          server()
            .post('/admin/v1/organizations')
            .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
            .send({ organization: { name: 'Request id' }, application: { name: 'Web' } }),
        201,
      ],
      ['400', () => server().post('/admin/v1/organizations').set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`).send({}), 400],
      ['401', () => server().get(`/priv/v1/apps/${tenant.apiKey}/users/${'0'.repeat(8)}`), 401],
      ['404', () => server().get('/nope'), 404],
    ])('is set on a %s response', async (_label, send, status) => {
      const res = await send();
      expect(res.status).toBe(status);
      expect(res.headers['x-request-id']).toMatch(UUID);
    });

    it('gives each request its own id', async () => {
      const [a, b] = await Promise.all([server().get('/health/live'), server().get('/health/live')]);
      expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
    });

    it.each(['abc-123', 'trace.01:span_02', 'A'.repeat(128)])('echoes a sane incoming id %#', async (id) => {
      const ok = await server().get('/health/live').set('x-request-id', id);
      expect(ok.headers['x-request-id']).toBe(id);
      const error = await server().get('/nope').set('x-request-id', id);
      expect(error.headers['x-request-id']).toBe(id);
    });

    it.each([
      ['300 characters', 'a'.repeat(300)],
      ['spaces', 'has some spaces'],
      ['a quote and angle brackets', '"><script>'],
    ])('replaces an incoming id with %s', async (_label, id) => {
      const res = await server().get('/health/live').set('x-request-id', id);
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toMatch(UUID);
      expect(res.headers['x-request-id']).not.toBe(id);
    });
  });

  describe('error bodies carry no internals', () => {
    it('for a duplicate external_id (a unique-index violation in PostgreSQL)', async () => {
      const customer = await createCustomer(app, tenant);
      const res = await api(app, tenant).post('/users').send({ user: { external_id: customer.external_id } });
      expectError(res, 400, 'validation');
      expectNoInternals(res);
    });

    it('for a PUT that changes external_id to a used one (a unique-index violation on UPDATE)', async () => {
      const [first, second] = [await createCustomer(app, tenant), await createCustomer(app, tenant)];
      const res = await api(app, tenant).put(`/users/${first.id}`).send({ user: { external_id: second.external_id } });
      expectError(res, 400, 'validation');
      expectNoInternals(res);
    });

    it.each<[string, () => request.Test, number, string]>([
      ['a malformed user_id', () => api(app, tenant).get("/users/1' OR '1'='1"), 404, 'not_found'],
      ['an unknown member', () => api(app, tenant).post('/users').send({ user: { external_id: 'x', points: 1 } }), 400, 'argument_error'],
      ['a wrong secret', () => server().get(`/priv/v1/apps/${tenant.apiKey}/users/x`).auth(tenant.apiKey, 'wrong'), 401, 'unauthorized'],
      ['an out-of-range page', () => api(app, tenant).get(`/users/${'0'.repeat(8)}-0000-4000-8000-000000000000/timeline?page=0`), 400, 'validation'],
    ])('for %s', async (_label, send, status, code) => {
      const res = await send();
      expectError(res, status, code);
      expectNoInternals(res);
    });
  });
});
