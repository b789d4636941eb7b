import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { createTestApp } from './support/app.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor } from './support/worker.js';
import { api, createTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createBehavior } from './factories/behavior.factory.js';
import { createCustomer } from './factories/customer.factory.js';

const DAY = 86_400_000;

/**
 * Contract §13's expiry end to end: the worker's sweeper (the real worker, its own clock) takes credits past their
 * `expires_at` out of the balance within 60 seconds, and a subscribed webhook receives `points.expired`.
 */
describe('points expiry by the worker (contract §13)', () => {
  const prefix = ownQueuePrefix('points-expiry');
  let app: INestApplication;
  let worker: INestApplicationContext;
  let receiver: Server;
  const received: Array<{ type: string; data: Record<string, unknown> }> = [];

  beforeAll(async () => {
    app = await createTestApp({ queuePrefix: prefix, webhookAllowPrivateNetworks: true });
    receiver = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        received.push(JSON.parse(body));
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await new Promise((resolve) => receiver?.close(resolve));
    await deleteQueueKeys(prefix);
  });

  it('expires a credit past its expires_at within 60 s, leaves the others, and sends points.expired', async () => {
    const tenant = await createTenant(app, { points_expire_after_days: 1 });
    const campaign = await createCampaign(app, tenant);
    await createBehavior(app, tenant, campaign.id, { name: 'Buy anything', event: 'purchase', event_count: 1, points: 50 });
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/expired`;
    await api(app, tenant).post('/management/webhooks').send({ webhook: { url, event_types: ['points.expired'] } }).expect(201);
    const customer = await createCustomer(app, tenant);
    // Earned two days ago (due a day ago), and now (due tomorrow); then 30 spent: the soonest-expiring credit pays.
    await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { purchase: 1 }, date: new Date(Date.now() - 2 * DAY).toISOString() }).expect(200);
    await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { purchase: 1 } }).expect(200);
    await api(app, tenant).post(`/users/${customer.id}/points/debits`).send({ debit: { points: 30 } }).expect(201);
    const points = async () => (await api(app, tenant).get(`/users/${customer.id}/points`).expect(200)).body;
    expect((await points()).available_points).toBe(70);

    // The worker starts once the books are set: its sweep, every 5 s, would otherwise expire the credit due a day ago
    // before the debit (CI saw 20 instead of 70).
    worker = await startTestWorker({ queuePrefix: prefix, webhookAllowPrivateNetworks: true, workerQueues: ['points', 'webhooks'] });
    await waitFor(async () => (await points()).available_points < 70, 60_000, 'the due credit to expire');
    const after = await points();
    expect(after).toEqual(expect.objectContaining({ available_points: 50, lifetime_points: 100 }));
    expect(after.entries[0]).toEqual(expect.objectContaining({ amount: -20, reason: 'expired', event_id: null }));
    expect(after.expiring).toEqual([{ points: 50, expires_at: expect.any(String) }]);
    expect(new Date(after.expiring[0].expires_at).getTime()).toBeGreaterThan(Date.now());

    await waitFor(() => received.some((r) => r.type === 'points.expired' && r.data.user_id === customer.id), 30_000, 'the points.expired delivery');
    expect(received.filter((r) => r.data.user_id === customer.id)).toEqual([
      expect.objectContaining({
        type: 'points.expired',
        data: expect.objectContaining({ user_id: customer.id, external_id: customer.external_id, points: 20, reason: 'expired', available_points: 50 }),
      }),
    ]);
  });
});
