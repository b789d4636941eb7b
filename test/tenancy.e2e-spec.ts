import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createTestApp } from './support/app.js';
import { TEST_ADMIN_TOKEN } from './support/test-env.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCustomer } from './factories/customer.factory.js';

const PROJECT_DIR = fileURLToPath(new URL('..', import.meta.url));

function errorBody(code: string) {
  return { status: 'error', errors: expect.objectContaining({ code, message: expect.any(String) }) };
}

/** The exact bootstrap answer of contract §3 for the given organization and application names. */
function bootstrapShape(org: { name: string; multi_org_enabled: boolean; time_zone: string }, appName: string) {
  return {
    status: 'ok',
    organization: { id: expect.any(Number), points_expire_after_days: null, tier_policy: { basis: 'lifetime' }, ...org, root_division_id: expect.any(Number) },
    application: { id: expect.any(Number), name: appName },
    api_key: expect.any(String),
    api_secret: expect.any(String),
  };
}

function credentials(body: { organization: { id: number; root_division_id: number }; api_key: string; api_secret: string }): TestTenant {
  return { organizationId: body.organization.id, rootDivisionId: body.organization.root_division_id, apiKey: body.api_key, apiSecret: body.api_secret };
}

describe('tenancy: admin API and bootstrap', () => {
  let app: INestApplication;
  const admin = () => ({
    post: (path: string) => request(app.getHttpServer()).post(`/admin/v1${path}`).set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`),
    delete: (path: string) => request(app.getHttpServer()).delete(`/admin/v1${path}`).set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`),
  });

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  describe('POST /admin/v1/organizations', () => {
    it('answers 201 with exactly the organization, application and credentials, defaulting multi_org_enabled and time_zone', async () => {
      const res = await admin().post('/organizations').send({ organization: { name: 'Acme' }, application: { name: 'Web' } }).expect(201);
      expect(res.body).toEqual(bootstrapShape({ name: 'Acme', multi_org_enabled: false, time_zone: 'UTC' }, 'Web'));
      expect(res.body.api_key).not.toEqual(res.body.api_secret);
    });

    it('stores the given multi_org_enabled and time_zone', async () => {
      const organization = { name: 'Globex', multi_org_enabled: true, time_zone: 'Europe/Paris' };
      const res = await admin().post('/organizations').send({ organization, application: { name: 'POS' } }).expect(201);
      expect(res.body).toEqual(bootstrapShape(organization, 'POS'));
    });

    it('returns credentials that work on a /priv route, whose customers land in the root division', async () => {
      const res = await admin().post('/organizations').send({ organization: { name: 'Initech' }, application: { name: 'Web' } }).expect(201);
      const tenant = credentials(res.body);
      const created = await api(app, tenant).post('/users').send({ user: { external_id: 'first' } }).expect(201);
      expect(created.body.user).toEqual(expect.objectContaining({ external_id: 'first', time_zone: 'UTC', division_id: tenant.rootDivisionId }));
    });

    it('stores only a scrypt hash of the secret and never shows the secret again', async () => {
      const res = await admin().post('/organizations').send({ organization: { name: 'Hooli' }, application: { name: 'Web' } }).expect(201);
      const tenant = credentials(res.body);
      const rows: Array<{ secret_hash: string }> = await app.get(DataSource).query('SELECT * FROM api_keys WHERE key = $1', [tenant.apiKey]);
      expect(rows).toHaveLength(1);
      expect(rows[0].secret_hash).toMatch(/^scrypt\$/);
      expect(JSON.stringify(rows[0])).not.toContain(tenant.apiSecret);

      const user = await createCustomer(app, tenant);
      const later = [
        await api(app, tenant).get(`/users/${user.id}`).expect(200),
        await api(app, tenant).put(`/users/${user.id}`).send({ user: { tags: ['x'] } }).expect(200),
        await admin().post(`/organizations/${tenant.organizationId}/applications`).send({ application: { name: 'POS' } }).expect(201),
      ];
      for (const answer of later) {
        expect(JSON.stringify(answer.body)).not.toContain(tenant.apiSecret);
        expect(JSON.stringify(answer.headers)).not.toContain(tenant.apiSecret);
      }
    });

    it.each([
      ['no Authorization header', undefined],
      ['a wrong token', 'Bearer wrong-admin-token-0123456789'],
      ['the right token without the Bearer scheme', TEST_ADMIN_TOKEN],
      ['the right token in a Basic header', `Basic ${TEST_ADMIN_TOKEN}`],
      ['an empty Bearer token', 'Bearer '],
    ])('answers 401 unauthorized with %s', async (_case, header) => {
      const req = request(app.getHttpServer()).post('/admin/v1/organizations');
      if (header !== undefined) req.set('Authorization', header);
      const res = await req.send({ organization: { name: 'Nope' }, application: { name: 'Web' } }).expect(401);
      expect(res.body).toEqual(errorBody('unauthorized'));
    });

    it.each([
      ['no organization wrapper', { application: { name: 'Web' } }, ['organization']],
      ['no application wrapper', { organization: { name: 'Acme' } }, ['application']],
      ['no organization name', { organization: { time_zone: 'UTC' }, application: { name: 'Web' } }, ['organization.name']],
      ['no application name', { organization: { name: 'Acme' }, application: {} }, ['application.name']],
      ['a null organization name', { organization: { name: null }, application: { name: 'Web' } }, ['organization.name']],
      ['neither wrapper', {}, ['organization', 'application']],
    ])('answers 400 missing_data for %s, naming each missing field', async (_case, body, fields) => {
      const res = await admin().post('/organizations').send(body).expect(400);
      expect(res.body).toEqual(errorBody('missing_data'));
      expect(res.body.errors.details).toEqual(expect.arrayContaining(fields.map((field) => expect.objectContaining({ field }))));
      expect(res.body.errors.details).toHaveLength(fields.length);
    });

    it.each([
      ['in the organization', { organization: { name: 'Acme', plan: 'gold' }, application: { name: 'Web' } }, 'organization.plan'],
      ['in the application', { organization: { name: 'Acme' }, application: { name: 'Web', platform: 'ios' } }, 'application.platform'],
      ['at the top level', { organization: { name: 'Acme' }, application: { name: 'Web' }, extra: true }, 'extra'],
    ])('answers 400 argument_error for an unknown member %s', async (_case, body, field) => {
      const res = await admin().post('/organizations').send(body).expect(400);
      expect(res.body).toEqual(errorBody('argument_error'));
      expect(res.body.errors.details).toEqual([expect.objectContaining({ field })]);
    });

    it.each([
      ['an unknown time_zone', { time_zone: 'Mars/Olympus_Mons' }, 'organization.time_zone'],
      ['a string multi_org_enabled', { multi_org_enabled: 'yes' }, 'organization.multi_org_enabled'],
      ['a numeric multi_org_enabled', { multi_org_enabled: 1 }, 'organization.multi_org_enabled'],
      ['a non-string name', { name: 42 }, 'organization.name'],
    ])('answers 400 validation for %s', async (_case, override, field) => {
      const res = await admin().post('/organizations').send({ organization: { name: 'Acme', ...override }, application: { name: 'Web' } }).expect(400);
      expect(res.body).toEqual(errorBody('validation'));
      expect(res.body.errors.details.length).toBeGreaterThan(0);
      for (const detail of res.body.errors.details) expect(detail).toEqual({ field, message: expect.any(String) });
    });

    it('answers 400 invalid_json for a malformed body', async () => {
      const res = await admin().post('/organizations').set('Content-Type', 'application/json').send('{"organization":').expect(400);
      expect(res.body).toEqual(errorBody('invalid_json'));
    });
  });

  describe('POST /admin/v1/organizations/:id/applications', () => {
    let tenant: TestTenant;

    beforeAll(async () => {
      tenant = await createTenant(app);
    });

    it('answers 201 with a new application and credentials that see the same organization', async () => {
      const res = await admin().post(`/organizations/${tenant.organizationId}/applications`).send({ application: { name: 'POS' } }).expect(201);
      expect(res.body).toEqual({
        status: 'ok',
        application: { id: expect.any(Number), name: 'POS' },
        api_key: expect.any(String),
        api_secret: expect.any(String),
      });
      expect(res.body.api_key).not.toEqual(tenant.apiKey);
      const second: TestTenant = { ...tenant, apiKey: res.body.api_key, apiSecret: res.body.api_secret };

      const fromFirst = await createCustomer(app, tenant);
      const seen = await api(app, second).get(`/users/${fromFirst.id}`).expect(200);
      expect(seen.body.user).toEqual(expect.objectContaining({ id: fromFirst.id, external_id: fromFirst.external_id }));

      const fromSecond = await createCustomer(app, second);
      await api(app, tenant).get(`/external/users/${fromSecond.external_id}`).expect(200);
    });

    it('answers 400 missing_data without the application wrapper', async () => {
      const res = await admin().post(`/organizations/${tenant.organizationId}/applications`).send({}).expect(400);
      expect(res.body).toEqual(errorBody('missing_data'));
      expect(res.body.errors.details).toEqual([expect.objectContaining({ field: 'application' })]);
    });

    it.each([
      ['an unknown organization id', '2147483647'],
      ['an organization id beyond the integer range', '99999999999'],
      ['a non-numeric id', 'acme'],
      ['a decimal id', '1.5'],
    ])('answers 404 not_found for %s', async (_case, id) => {
      const res = await admin().post(`/organizations/${id}/applications`).send({ application: { name: 'POS' } }).expect(404);
      expect(res.body).toEqual(errorBody('not_found'));
    });

    it('answers 401 without the admin token', async () => {
      const res = await request(app.getHttpServer())
        .post(`/admin/v1/organizations/${tenant.organizationId}/applications`)
        .send({ application: { name: 'POS' } })
        .expect(401);
      expect(res.body).toEqual(errorBody('unauthorized'));
    });
  });

  describe('DELETE /admin/v1/api_keys/:api_key', () => {
    it('deactivates a key that was just used: it gets 401 at once, while another key of the organization still works', async () => {
      const tenant = await createTenant(app);
      const other = await admin().post(`/organizations/${tenant.organizationId}/applications`).send({ application: { name: 'POS' } }).expect(201);
      const otherTenant: TestTenant = { ...tenant, apiKey: other.body.api_key, apiSecret: other.body.api_secret };
      const user = await createCustomer(app, tenant);
      await api(app, tenant).get(`/users/${user.id}`).expect(200);

      const res = await admin().delete(`/api_keys/${tenant.apiKey}`).expect(200);
      expect(res.body).toEqual({ status: 'ok' });

      const denied = await api(app, tenant).get(`/users/${user.id}`).expect(401);
      expect(denied.body).toEqual(errorBody('unauthorized'));
      await api(app, otherTenant).get(`/users/${user.id}`).expect(200);
    });

    it('answers 404 not_found for an unknown key', async () => {
      const res = await admin().delete('/api_keys/00000000000000000000000000000000').expect(404);
      expect(res.body).toEqual(errorBody('not_found'));
    });

    it('answers 401 without the admin token and leaves the key working', async () => {
      const tenant = await createTenant(app);
      const res = await request(app.getHttpServer()).delete(`/admin/v1/api_keys/${tenant.apiKey}`).expect(401);
      expect(res.body).toEqual(errorBody('unauthorized'));
      await api(app, tenant).post('/users').send({ user: { external_id: 'still-works' } }).expect(201);
    });
  });

  describe('CLI bootstrap', () => {
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ['dist/src/cli.js', 'bootstrap', ...args], { cwd: PROJECT_DIR, env: process.env, encoding: 'utf8' });

    it('prints the same JSON as the HTTP answer, with credentials that work over HTTP', async () => {
      const run = cli('--org', 'CLI Org', '--app', 'CLI App');
      expect(run.status).toBe(0);
      const body = JSON.parse(run.stdout);
      expect(body).toEqual(bootstrapShape({ name: 'CLI Org', multi_org_enabled: false, time_zone: 'UTC' }, 'CLI App'));
      const tenant = credentials(body);
      const created = await api(app, tenant).post('/users').send({ user: { external_id: 'cli-customer' } }).expect(201);
      expect(created.body.user.division_id).toBe(tenant.rootDivisionId);
    });

    it('exits 1 with a missing_data JSON error without --org', () => {
      const run = cli('--app', 'CLI App');
      expect(run.status).toBe(1);
      const body = JSON.parse(run.stdout);
      expect(body).toEqual(errorBody('missing_data'));
      expect(body.errors.details).toEqual([expect.objectContaining({ field: 'organization.name' })]);
    });
  });
});

describe('tenancy: admin API without ADMIN_TOKEN', () => {
  let app: INestApplication;
  let tenant: TestTenant;

  beforeAll(async () => {
    const enabled = await createTestApp();
    try {
      tenant = await createTenant(enabled);
    } finally {
      await enabled.close();
    }
    app = await createTestApp({ adminToken: null });
  });
  afterAll(() => app.close());

  it.each([
    ['POST /admin/v1/organizations', () => request(app.getHttpServer()).post('/admin/v1/organizations').send({ organization: { name: 'X' }, application: { name: 'Web' } })],
    ['POST /admin/v1/organizations/:id/applications', () => request(app.getHttpServer()).post(`/admin/v1/organizations/${tenant.organizationId}/applications`).send({ application: { name: 'POS' } })],
    ['DELETE /admin/v1/api_keys/:api_key', () => request(app.getHttpServer()).delete(`/admin/v1/api_keys/${tenant.apiKey}`)],
  ])('answers 401 on %s even with the usual token', async (_route, send) => {
    const res = await send().set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`).expect(401);
    expect(res.body).toEqual(errorBody('unauthorized'));
  });

  it('leaves the key active when it refuses to deactivate it: the key still creates and reads a customer', async () => {
    const refused = await request(app.getHttpServer()).delete(`/admin/v1/api_keys/${tenant.apiKey}`).set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`).expect(401);
    expect(refused.body).toEqual(errorBody('unauthorized'));
    const res = await api(app, tenant).post('/users').send({ user: { external_id: 'after-disabled-admin' } }).expect(201);
    expect(res.body).toMatchObject({ status: 'ok', user: { external_id: 'after-disabled-admin', division_id: tenant.rootDivisionId } });
    expect((await api(app, tenant).get(`/users/${res.body.user.id}`).expect(200)).body.user).toEqual(res.body.user);
  });
});
