import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { ledgerOrganizations } from '../support/ledger.js';
import { TEST_ADMIN_TOKEN } from '../support/test-env.js';

export interface TestTenant {
  organizationId: number;
  rootDivisionId: number;
  apiKey: string;
  apiSecret: string;
}

let counter = 0;

/** Bootstraps an organization through the admin API, as a user would. */
export async function createTenant(
  app: INestApplication,
  organization: { name?: string; multi_org_enabled?: boolean; time_zone?: string; points_expire_after_days?: number | null; tier_policy?: Record<string, unknown> } = {},
): Promise<TestTenant> {
  counter += 1;
  const res = await request(app.getHttpServer())
    .post('/admin/v1/organizations')
    .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
    .send({ organization: { name: `Org ${counter}`, ...organization }, application: { name: 'Web' } })
    .expect(201);
  ledgerOrganizations.add(res.body.organization.id);
  return {
    organizationId: res.body.organization.id,
    rootDivisionId: res.body.organization.root_division_id,
    apiKey: res.body.api_key,
    apiSecret: res.body.api_secret,
  };
}

/** Requests under /priv/v1/apps/:api_key with the tenant's Basic credentials. */
export function api(app: INestApplication, tenant: TestTenant) {
  const base = `/priv/v1/apps/${tenant.apiKey}`;
  const server = app.getHttpServer();
  const auth = (req: request.Test) => req.auth(tenant.apiKey, tenant.apiSecret);
  return {
    get: (path: string) => auth(request(server).get(`${base}${path}`)),
    post: (path: string) => auth(request(server).post(`${base}${path}`)),
    put: (path: string) => auth(request(server).put(`${base}${path}`)),
    delete: (path: string) => auth(request(server).delete(`${base}${path}`)),
  };
}

/** An HTTP Basic Authorization header value. */
export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

/** A second application of the tenant's organization: its own api key and secret. */
export async function addApplication(app: INestApplication, tenant: TestTenant): Promise<TestTenant> {
  const res = await request(app.getHttpServer())
    .post(`/admin/v1/organizations/${tenant.organizationId}/applications`)
    .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
    .send({ application: { name: 'Second' } })
    .expect(201);
  return { ...tenant, apiKey: res.body.api_key, apiSecret: res.body.api_secret };
}
