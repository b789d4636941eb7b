import { jest } from '@jest/globals';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import request from 'supertest';
import { createTestApp } from './support/app.js';
import { expectError } from './support/errors.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor } from './support/worker.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { createBehavior } from './factories/behavior.factory.js';
import { createTriggeredCreative } from './factories/creative.factory.js';

/** A bound on waiting for the worker, never an expectation of speed. */
const SETTLE_MS = 30_000;
jest.setTimeout(SETTLE_MS + 15_000);

type Customer = { id: string; external_id: string };

describe("a customer's notifications (triggered creatives)", () => {
  const prefix = ownQueuePrefix('notifications');
  let app: INestApplication;
  let worker: INestApplicationContext;
  let tenant: TestTenant;
  let campaignId: number;

  const CONTENT = { message: 'Welcome aboard', url: 'https://example.com/welcome', payload: { screen: 'rewards' } };
  const expected = (id: number) => ({
    id,
    type: 'push_message',
    campaign_id: campaignId,
    behavior_name: 'Signed up',
    data: { action_type: 'message', ...CONTENT },
  });

  const signUp = async (customer: Customer) => {
    const res = await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { signup: 1 } });
    expect(res.status).toBe(200);
    return res.body as { notifications: Array<{ id: number }> };
  };
  const list = (path: string, query = '') => api(app, tenant).get(`${path}/notifications${query}`);

  beforeAll(async () => {
    app = await createTestApp({ queuePrefix: prefix });
    worker = await startTestWorker({ queuePrefix: prefix, workerQueues: ['events'] });
    tenant = await createTenant(app);
    campaignId = (await createCampaign(app, tenant)).id;
    const behavior = await createBehavior(app, tenant, campaignId, { name: 'Signed up', event: 'signup', points: 1 });
    await createTriggeredCreative(app, tenant, campaignId, behavior.id, CONTENT);
  });

  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  it('lists what the V1 answers gave, newest first, by user_id and by external_id, a page at a time', async () => {
    const customer = await createCustomer(app, tenant);
    const first = await signUp(customer);
    const second = await signUp(customer);
    const [a, b] = [first.notifications[0].id, second.notifications[0].id];

    const byId = await list(`/users/${customer.id}`).expect(200);
    expect(byId.body).toEqual({ status: 'ok', notifications: [expected(b), expected(a)] });
    const byExternal = await list(`/external/users/${customer.external_id}`).expect(200);
    expect(byExternal.body).toEqual(byId.body);
    expect((await list(`/users/${customer.id}`, '?limit=1&page=2').expect(200)).body.notifications).toEqual([expected(a)]);
    expect((await list(`/users/${customer.id}`, '?limit=1&page=3').expect(200)).body.notifications).toEqual([]);
  });

  it("shows each event's notifications in the timeline", async () => {
    const customer = await createCustomer(app, tenant);
    const answer = await signUp(customer);
    await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { something_else: 1 } }).expect(200);
    const { body } = await api(app, tenant).get(`/users/${customer.id}/timeline`).expect(200);
    expect(body.events).toEqual([
      expect.objectContaining({ name: 'something_else', notifications: [] }),
      expect.objectContaining({ name: 'signup', notifications: [expected(answer.notifications[0].id)] }),
    ]);
  });

  it('stores the notifications of V2 events for reading afterwards', async () => {
    const customer = await createCustomer(app, tenant);
    await request(app.getHttpServer())
      .post(`/priv/v2/apps/${tenant.apiKey}/events`)
      .auth(tenant.apiKey, tenant.apiSecret)
      .send({ events: [{ name: 'signup', user_id: customer.id }] })
      .expect(200);
    let notifications: Array<{ id: number }> = [];
    await waitFor(
      async () => {
        notifications = (await list(`/users/${customer.id}`).expect(200)).body.notifications;
        return notifications.length > 0;
      },
      SETTLE_MS,
      'the worker to evaluate the event',
    );
    expect(notifications).toEqual([expected(notifications[0].id)]);
  });

  it('shows a creative without content as an open_ad notification whose url, message and payload are null', async () => {
    const campaign = await createCampaign(app, tenant);
    const behavior = await createBehavior(app, tenant, campaign.id, { name: 'Opened the app', event: 'app_open', points: 1 });
    await createTriggeredCreative(app, tenant, campaign.id, behavior.id, { name: 'Bulk offer', ad_type: 'issue_bulk_offer', creative_type: 'issue-bulk-offer' });
    const customer = await createCustomer(app, tenant);
    await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { app_open: 1 } }).expect(200);

    const res = await list(`/users/${customer.id}`).expect(200);
    expect(res.body).toEqual({
      status: 'ok',
      notifications: [
        {
          id: expect.any(Number),
          type: 'issue_bulk_offer',
          campaign_id: campaign.id,
          behavior_name: 'Opened the app',
          data: { action_type: 'open_ad', url: null, message: null, payload: null },
        },
      ],
    });
  });

  it('answers not_found for an unknown customer and for a customer of another organization', async () => {
    expectError(await list('/users/00000000-0000-4000-8000-000000000000'), 404, 'not_found');
    expectError(await list('/external/users/nobody-here'), 404, 'not_found');
    const other = await createTenant(app);
    const theirs = await createCustomer(app, other);
    expectError(await list(`/users/${theirs.id}`), 404, 'not_found');
  });

  it('answers validation for a bad page or limit', async () => {
    const customer = await createCustomer(app, tenant);
    expect(expectError(await list(`/users/${customer.id}`, '?limit=0'), 400, 'validation')).toEqual(['limit']);
    expect(expectError(await list(`/users/${customer.id}`, '?page=zero'), 400, 'validation')).toEqual(['page']);
    expect(expectError(await list(`/external/users/${customer.external_id}`, '?limit=101'), 400, 'validation')).toEqual(['limit']);
  });
});
