import type { INestApplication } from '@nestjs/common';
import { createTestApp } from './support/app.js';
import { createBehavior } from './factories/behavior.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { api, createTenant, type TestTenant } from './factories/tenant.factory.js';

/**
 * Issue #28, item 4: no customer's state can make an answer grow without bound. The probe: a unique goal with a
 * large event_count and requests of 100 distinct 9 KB values; every V1 answer and every read of that customer carried
 * every value stored so far (36 MB, growing linearly). The values stay in the progress (at most the goal's
 * event_count of them); answers carry this request's new ones only.
 */
describe('answers of a customer whose unique goal gathers many values', () => {
  let app: INestApplication;
  let tenant: TestTenant;
  let userId: string;
  const REQUESTS = 5;
  const value = (request: number, i: number) => `store-${request}-${i}-${'x'.repeat(200)}`;

  beforeAll(async () => {
    app = await createTestApp();
    tenant = await createTenant(app);
    const campaign = await createCampaign(app, tenant);
    await createBehavior(app, tenant, campaign.id, { name: 'Many stores', event: 'store_visit', type: 'unique', unique_attribute: 'store_id', event_count: 10_000 });
    userId = (await createCustomer(app, tenant)).id;
  });
  afterAll(() => app.close());

  it('each V1 answer carries this request’s 100 new values alone, and is no larger after 500 values than after 100', async () => {
    const sizes: number[] = [];
    for (let r = 0; r < REQUESTS; r++) {
      const instances = Array.from({ length: 100 }, (_v, i) => ({ store_id: value(r, i) }));
      const res = await api(app, tenant).post(`/users/${userId}/events`).send({ events: { store_visit: instances } }).expect(200);
      const behavior = res.body.behaviors['Many stores'];
      expect(behavior.deltas.data).toEqual(instances.map((i) => i.store_id));
      expect(behavior.goals.store_visit.progress.current_count).toBe(100 * (r + 1));
      // Nothing of the earlier requests' values.
      if (r > 0) expect(res.text).not.toContain(value(r - 1, 0));
      sizes.push(res.text.length);
    }
    expect(sizes[REQUESTS - 1]).toBeLessThanOrEqual(sizes[0] * 1.05);
  });

  it('reading the customer and its progress answers none of the values gathered', async () => {
    const user = await api(app, tenant).get(`/users/${userId}`).expect(200);
    expect(user.text).not.toContain('store-0-0-');
    const progress = await api(app, tenant).get(`/users/${userId}/events`).expect(200);
    expect(progress.text).not.toContain('store-0-0-');
    expect(JSON.stringify(progress.body)).toContain('"current_count":500');
  });
});
