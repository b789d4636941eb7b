import type { INestApplication } from '@nestjs/common';
import { api, TestTenant } from './tenant.factory.js';

let counter = 0;

/** Creates a customer through the API and answers its `user` object. */
export async function createCustomer(app: INestApplication, tenant: TestTenant, user: Record<string, unknown> = {}) {
  counter += 1;
  const res = await api(app, tenant)
    .post('/users')
    .send({ user: { external_id: `customer-${counter}-${Date.now()}`, ...user } })
    .expect(201);
  return res.body.user as { id: string; external_id: string; division_id: number; time_zone: string };
}
