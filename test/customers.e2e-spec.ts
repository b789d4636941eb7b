import type { INestApplication } from '@nestjs/common';
import { createTestApp } from './support/app.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';

describe('customers', () => {
  let app: INestApplication;
  let tenant: TestTenant;

  beforeAll(async () => {
    app = await createTestApp();
    tenant = await createTenant(app, { time_zone: 'Europe/Paris' });
  });
  afterAll(() => app.close());

  it('creates a customer with the organization time zone and root division by default', async () => {
    const res = await api(app, tenant).post('/users').send({ user: { external_id: 'c-1', tags: ['vip'], attributes: { plan: 'gold' } } }).expect(201);
    expect(res.body).toEqual({
      status: 'ok',
      user: expect.objectContaining({ external_id: 'c-1', time_zone: 'Europe/Paris', division_id: tenant.rootDivisionId, tags: ['vip'], attributes: { plan: 'gold' }, available_points: 0, lifetime_points: 0, tier: null }),
    });
  });
});
