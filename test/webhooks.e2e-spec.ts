import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jest } from '@jest/globals';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createTestApp } from './support/app.js';
import { expectError } from './support/errors.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor } from './support/worker.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createTriggeredCreative } from './factories/creative.factory.js';
import { createBehavior } from './factories/behavior.factory.js';
import { createCustomer } from './factories/customer.factory.js';

/** Bounds on waiting, never expectations of speed. */
const SETTLE_MS = 30_000;
jest.setTimeout(SETTLE_MS + 15_000);


interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  answered: number;
}

interface Payload {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

/** Answers of requests to /hold paths, held until the test calls them. */
const held: Array<() => void> = [];

/**
 * A webhook receiver on 127.0.0.1: records every request; paths starting /flaky answer 500 to their first request,
 * paths starting /hold answer their first request only when the test releases it (`held`).
 */
async function startReceiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  /** Paths whose first request was answered 500 (/flaky) or held (/hold) already. */
  const failed = new Set<string>();
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      const fail = path.startsWith('/flaky') && !failed.has(path);
      if (fail) failed.add(path);
      const answered = fail ? 500 : 200;
      received.push({ path, headers: req.headers, body, answered });
      const answer = () => res.writeHead(answered, { 'content-type': 'text/plain' }).end(fail ? 'boom' : 'ok');
      if (path.startsWith('/hold') && !failed.has(path)) {
        failed.add(path);
        held.push(answer);
      } else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

/** Verifies a request as docs/webhooks.md tells receivers to: HMAC-SHA256 of `<timestamp>.<raw body>` under the secret. */
function signatureValid(r: Received, secret: string): boolean {
  const timestamp = r.headers['x-webhook-timestamp'] as string;
  const header = r.headers['x-webhook-signature'] as string;
  if (!timestamp || !header?.startsWith('v1=')) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${timestamp}.${r.body}`).digest('hex'));
  const given = Buffer.from(header.slice(3));
  return expected.length === given.length && timingSafeEqual(expected, given);
}

describe('webhooks', () => {
  const prefix = ownQueuePrefix('webhooks');
  let app: INestApplication;
  let strictApp: INestApplication;
  let worker: INestApplicationContext;
  let db: DataSource;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    app = await createTestApp({ queuePrefix: prefix, webhookAllowPrivateNetworks: true });
    strictApp = await createTestApp({ queuePrefix: prefix, webhookAllowPrivateNetworks: false });
    worker = await startTestWorker({ queuePrefix: prefix, webhookAllowPrivateNetworks: true, workerQueues: ['events', 'webhooks'] });
    db = app.get(DataSource);
    receiver = await startReceiver();
  });

  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await strictApp?.close();
    await new Promise((resolve) => receiver?.server.close(resolve));
    await deleteQueueKeys(prefix);
  });

  const subscribe = (on: INestApplication, tenant: TestTenant, webhook: unknown) => api(on, tenant).post('/management/webhooks').send({ webhook });

  const payloads = (path: string, ok = true) =>
    receiver.received.filter((r) => r.path === path && (!ok || r.answered === 200)).map((r) => JSON.parse(r.body) as Payload);

  describe('management routes', () => {
    let tenant: TestTenant;
    let other: TestTenant;

    beforeAll(async () => {
      tenant = await createTenant(app);
      other = await createTenant(app);
    });

    it('creates a webhook: 201 with id, url, event types and the secret, which is never answered again', async () => {
      const res = await subscribe(app, tenant, { url: `${receiver.url}/created`, event_types: ['points.credited', 'tier.changed'] });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 201,
        body: {
          status: 'ok',
          webhook: {
            id: expect.any(Number),
            url: `${receiver.url}/created`,
            event_types: ['points.credited', 'tier.changed'],
            secret: expect.stringMatching(/^whsec_[0-9a-f]{64}$/),
            created_at: expect.any(String),
          },
        },
      });
      const list = await api(app, tenant).get('/management/webhooks').expect(200);
      expect(list.body).toEqual({
        status: 'ok',
        webhooks: [{ id: res.body.webhook.id, url: `${receiver.url}/created`, event_types: ['points.credited', 'tier.changed'], created_at: res.body.webhook.created_at }],
      });
      expect(JSON.stringify(list.body)).not.toContain(res.body.webhook.secret);
      const deliveries = await api(app, tenant).get(`/management/webhooks/${res.body.webhook.id}/deliveries`).expect(200);
      expect(deliveries.body).toEqual({ status: 'ok', deliveries: [], page: 1, limit: 10, total: 0 });
      const audit = await api(app, tenant).get('/management/audit_log').expect(200);
      expect(JSON.stringify(audit.body)).not.toContain(res.body.webhook.secret);
    });

    it('answers missing_data for a missing wrapper or member', async () => {
      expect(expectError(await api(app, tenant).post('/management/webhooks').send({}), 400, 'missing_data')).toEqual(['webhook']);
      expect(expectError(await subscribe(app, tenant, { event_types: ['tier.changed'] }), 400, 'missing_data')).toEqual(['webhook.url']);
      expect(expectError(await subscribe(app, tenant, { url: `${receiver.url}/x` }), 400, 'missing_data')).toEqual(['webhook.event_types']);
    });

    it('answers argument_error for an unknown member', async () => {
      const res = await subscribe(app, tenant, { url: `${receiver.url}/x`, event_types: ['tier.changed'], secret: 'mine' });
      expect(expectError(res, 400, 'argument_error')).toEqual(['webhook.secret']);
    });

    it.each([
      ['a URL that does not parse', 'not a url'],
      ['a scheme other than http(s)', 'ftp://example.com/hook'],
      ['a javascript: URL', 'javascript:alert(1)'],
      ['a URL that is not a string', 42],
    ])('answers validation for %s', async (_what, url) => {
      expect(expectError(await subscribe(app, tenant, { url, event_types: ['tier.changed'] }), 400, 'validation')).toEqual(['webhook.url']);
    });

    it.each([
      ['an unknown event type', ['points.credited', 'points.teleported']],
      ['an empty list', []],
      ['a repeated type', ['tier.changed', 'tier.changed']],
      ['a string instead of a list', 'tier.changed'],
    ])('answers validation for event_types with %s', async (_what, eventTypes) => {
      expect(expectError(await subscribe(app, tenant, { url: `${receiver.url}/x`, event_types: eventTypes }), 400, 'validation')).toEqual([
        'webhook.event_types',
      ]);
    });

    it.each([
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://api.localhost/hook',
      'http://10.1.2.3/hook',
      'http://172.16.0.1/hook',
      'http://192.168.1.10/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/hook',
      'http://[fe80::1]/hook',
      'http://[fd00::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://0x7f.0.0.1/hook',
      'http://0.0.0.0/hook',
      // Special-purpose ranges of the IANA registries beyond the private ones, and a trailing dot (contract §18).
      'http://[::ffff:0:127.0.0.1]/',
      'http://[2001:0:a9fe:a9fe::]/',
      'http://192.0.2.1/',
      'http://198.18.0.1/',
      'http://localhost./',
      'http://[2001:db8::1]/hook',
      'http://[64:ff9b::a9fe:a9fe]/hook',
    ])('refuses the private address %s when WEBHOOK_ALLOW_PRIVATE_NETWORKS is off', async (url) => {
      expect(expectError(await subscribe(strictApp, tenant, { url, event_types: ['tier.changed'] }), 400, 'validation')).toEqual(['webhook.url']);
    });

    it('accepts a public URL when private networks are refused', async () => {
      const res = await subscribe(strictApp, tenant, { url: 'https://hooks.example.com/loyalty', event_types: ['behavior.completed'] });
      expect(res.status).toBe(201);
      await api(app, tenant).delete(`/management/webhooks/${res.body.webhook.id}`).expect(200);
    });

    it("answers not_found for another organization's webhook, a deleted one, and ids that cannot exist", async () => {
      const created = await subscribe(app, tenant, { url: `${receiver.url}/mine`, event_types: ['tier.changed'] });
      const id = created.body.webhook.id as number;
      expectError(await api(app, other).get(`/management/webhooks/${id}/deliveries`), 404, 'not_found');
      expectError(await api(app, other).delete(`/management/webhooks/${id}`), 404, 'not_found');
      expect((await api(app, other).get('/management/webhooks').expect(200)).body.webhooks).toEqual([]);
      expectError(await api(app, tenant).get('/management/webhooks/abc/deliveries'), 404, 'not_found');
      expectError(await api(app, tenant).delete('/management/webhooks/0'), 404, 'not_found');

      const deleted = await api(app, tenant).delete(`/management/webhooks/${id}`);
      expect({ status: deleted.status, body: deleted.body }).toEqual({
        status: 200,
        body: { status: 'ok', webhook: expect.objectContaining({ id, deleted_at: expect.any(String) }) },
      });
      expect(deleted.body.webhook.secret).toBeUndefined();
      expectError(await api(app, tenant).delete(`/management/webhooks/${id}`), 404, 'not_found');
      expectError(await api(app, tenant).get(`/management/webhooks/${id}/deliveries`), 404, 'not_found');
      expect((await api(app, tenant).get('/management/webhooks').expect(200)).body.webhooks.map((w: { id: number }) => w.id)).not.toContain(id);
    });

    it.each([
      ['limit=101', 'limit', /^limit must be an integer from 1 to 100,/],
      ['limit=0', 'limit', /^limit must be an integer from 1 to 100,/],
      ['page=0', 'page', /^page must be an integer from 1 to 1000000,/],
    ])('answers 400 validation naming the parameter for a page size or page out of range on deliveries (%s)', async (query, field, message) => {
      const created = await subscribe(app, tenant, { url: `${receiver.url}/paged`, event_types: ['tier.changed'] });
      const res = await api(app, tenant).get(`/management/webhooks/${created.body.webhook.id}/deliveries?${query}`);
      expect(expectError(res, 400, 'validation')).toEqual([field]);
      expect(res.body.errors.message).toMatch(message);
    });

    it('needs the api key credentials', async () => {
      const res = await request(app.getHttpServer()).get(`/priv/v1/apps/${tenant.apiKey}/management/webhooks`).auth(tenant.apiKey, 'wrong');
      expectError(res, 401, 'unauthorized');
    });
  });

  describe('delivery', () => {
    let tenant: TestTenant;
    let campaignId: number;
    let behaviorId: number;
    let tierId: number;
    let flaky: { id: number; secret: string };
    let pointsOnly: { id: number; secret: string };
    let flakyPath: string;

    beforeAll(async () => {
      tenant = await createTenant(app);
      const campaign = await createCampaign(app, tenant);
      campaignId = campaign.id;
      const behavior = await createBehavior(app, tenant, campaign.id, { name: 'Signed up', event: 'signup', points: 10, goal_points: 2 });
      behaviorId = behavior.id;
      const tier = await api(app, tenant).post('/management/tiers').send({ tier: { name: 'Silver', min_points: 5 } }).expect(201);
      tierId = tier.body.tier.id;
      // A triggered creative: the completion produces a notification.
      await createTriggeredCreative(app, tenant, campaign.id, behavior.id, { message: 'Welcome aboard', url: 'https://example.com/welcome', payload: { screen: 'rewards' } });
      flakyPath = `/flaky-${tenant.organizationId}`;
      const a = await subscribe(app, tenant, {
        url: `${receiver.url}${flakyPath}`,
        event_types: ['notification.created', 'behavior.completed', 'tier.changed', 'points.credited'],
      }).expect(201);
      flaky = a.body.webhook;
      const b = await subscribe(app, tenant, { url: `${receiver.url}/points-${tenant.organizationId}`, event_types: ['points.credited'] }).expect(201);
      pointsOnly = b.body.webhook;
    });

    it('a V1 event delivers every event type, signed; a 500 is retried until it succeeds, and /deliveries shows both attempts', async () => {
      const customer = await createCustomer(app, tenant);
      const res = await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { signup: 1 } });
      expect(res.status).toBe(200);
      expect(res.body.available_points).toBe(12);
      expect(res.body.notifications).toHaveLength(1);
      const notificationId = res.body.notifications[0].id as number;

      await waitFor(() => payloads(flakyPath).length === 4, SETTLE_MS, 'four successful deliveries to the flaky webhook');
      await waitFor(() => payloads(`/points-${tenant.organizationId}`).length === 1, SETTLE_MS, 'the points-only delivery');

      const flakyRequests = receiver.received.filter((r) => r.path === flakyPath);
      expect(flakyRequests).toHaveLength(5);
      expect(flakyRequests[0].answered).toBe(500);
      for (const r of flakyRequests) {
        expect(signatureValid(r, flaky.secret)).toBe(true);
        expect(signatureValid(r, pointsOnly.secret)).toBe(false);
        expect(r.headers['content-type']).toBe('application/json');
        const body = JSON.parse(r.body) as Payload;
        expect(r.headers['x-webhook-id']).toBe(body.id);
        expect(r.headers['x-webhook-type']).toBe(body.type);
        expect(r.headers['x-webhook-delivery']).toMatch(/^\d+$/);
        expect(Math.abs(Number(r.headers['x-webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(120);
      }
      // The retry is the same delivery and the same payload id.
      const retried = flakyRequests.filter((r) => r.headers['x-webhook-delivery'] === flakyRequests[0].headers['x-webhook-delivery']);
      expect(retried.map((r) => r.answered)).toEqual([500, 200]);
      expect(new Set(retried.map((r) => r.headers['x-webhook-id'])).size).toBe(1);

      const who = { user_id: customer.id, external_id: customer.external_id };
      const byType = Object.fromEntries(payloads(flakyPath).map((p) => [p.type, p]));
      expect(Object.keys(byType).sort()).toEqual(['behavior.completed', 'notification.created', 'points.credited', 'tier.changed']);
      for (const p of Object.values(byType)) {
        expect(p).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), type: p.type, created_at: expect.stringMatching(/Z$/), data: expect.any(Object) });
      }
      expect(byType['notification.created'].data).toEqual({
        id: notificationId,
        type: 'push_message',
        campaign_id: campaignId,
        behavior_name: 'Signed up',
        data: { action_type: expect.any(String), url: 'https://example.com/welcome', message: 'Welcome aboard', payload: { screen: 'rewards' } },
        ...who,
      });
      expect(byType['behavior.completed'].data).toEqual({
        ...who,
        campaign_id: campaignId,
        behavior_id: behaviorId,
        behavior_name: 'Signed up',
        achieved: 1,
        completed_at: expect.any(String),
      });
      expect(byType['points.credited'].data).toEqual({
        ...who,
        points: 12,
        available_points: 12,
        lifetime_points: 12,
        credits: expect.arrayContaining([
          { amount: 10, reason: 'behavior', campaign_id: campaignId, behavior_id: behaviorId, goal_id: null, offer_id: null },
          expect.objectContaining({ amount: 2, reason: 'goal', campaign_id: campaignId, behavior_id: behaviorId }),
        ]),
      });
      expect(byType['tier.changed'].data).toEqual({ ...who, from_tier: null, to_tier: { id: tierId, name: 'Silver' }, direction: 'up', reason: 'points', lifetime_points: 12 });

      const [pointsDelivery] = receiver.received.filter((r) => r.path === `/points-${tenant.organizationId}`);
      expect(signatureValid(pointsDelivery, pointsOnly.secret)).toBe(true);
      // Both webhooks got the same event: the same payload id.
      expect(JSON.parse(pointsDelivery.body)).toEqual(byType['points.credited']);

      const deliveries = await api(app, tenant).get(`/management/webhooks/${flaky.id}/deliveries`).expect(200);
      expect(deliveries.body.total).toBe(4);
      expect(deliveries.body.deliveries.every((d: { status: string }) => d.status === 'delivered')).toBe(true);
      const twice = deliveries.body.deliveries.find((d: { id: string }) => d.id === flakyRequests[0].headers['x-webhook-delivery']);
      expect(twice).toEqual({
        id: flakyRequests[0].headers['x-webhook-delivery'],
        event_id: flakyRequests[0].headers['x-webhook-id'],
        type: flakyRequests[0].headers['x-webhook-type'],
        status: 'delivered',
        attempt_count: 2,
        created_at: expect.any(String),
        delivered_at: expect.any(String),
        attempts: [
          { attempt: 1, status: 'failed', response_code: 500, error: 'HTTP 500', duration_ms: expect.any(Number), started_at: expect.any(String), finished_at: expect.any(String) },
          { attempt: 2, status: 'succeeded', response_code: 200, error: null, duration_ms: expect.any(Number), started_at: expect.any(String), finished_at: expect.any(String) },
        ],
      });
      expect(Date.parse(twice.attempts[1].started_at)).toBeGreaterThan(Date.parse(twice.attempts[0].finished_at));
    });

    it('a V2 event processed by the worker delivers too', async () => {
      const customer = await createCustomer(app, tenant);
      const before = payloads(flakyPath).length;
      const res = await request(app.getHttpServer())
        .post(`/priv/v2/apps/${tenant.apiKey}/events`)
        .auth(tenant.apiKey, tenant.apiSecret)
        .send({ events: [{ name: 'signup', user_id: customer.id }] });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: 'ok' } });
      const mine = () => payloads(flakyPath).filter((p) => p.data.user_id === customer.id);
      await waitFor(() => mine().length === 4, SETTLE_MS, 'the V2 event delivered');
      expect(payloads(flakyPath).length).toBe(before + 4);
      expect(mine().map((p) => p.type).sort()).toEqual(['behavior.completed', 'notification.created', 'points.credited', 'tier.changed']);
      const notification = mine().find((p) => p.type === 'notification.created')!;
      const stored: Array<{ id: string }> = await db.query(`SELECT id FROM notifications WHERE customer_id = $1`, [customer.id]);
      expect(notification.data.id).toBe(Number(stored[0].id));
      for (const r of receiver.received.filter((x) => x.path === flakyPath && (JSON.parse(x.body) as Payload).data.user_id === customer.id)) {
        expect(signatureValid(r, flaky.secret)).toBe(true);
      }
    });

    it('an endpoint that does not answer holds back no evaluation: events are evaluated while its delivery waits', async () => {
      const owner = await createTenant(app);
      const campaign = await createCampaign(app, owner);
      await createBehavior(app, owner, campaign.id, { name: 'Visited', event: 'visit', points: 3 });
      const customer = await createCustomer(app, owner);
      const path = `/hold-${owner.organizationId}`;
      await subscribe(app, owner, { url: `${receiver.url}${path}`, event_types: ['points.credited'] }).expect(201);
      try {
        await api(app, owner).post(`/users/${customer.id}/events`).send({ events: { visit: 1 } }).expect(200);
        await waitFor(() => payloads(path).length === 1, SETTLE_MS, 'the first delivery to reach the endpoint');
        // Its answer is still held: the next events are evaluated and answered all the same.
        for (const expected of [6, 9]) {
          const res = await api(app, owner).post(`/users/${customer.id}/events`).send({ events: { visit: 1 } }).expect(200);
          expect(res.body.user.available_points).toBe(expected);
        }
        expect(held.length).toBeGreaterThan(0);
      } finally {
        for (const answer of held.splice(0)) answer();
      }
      await waitFor(() => payloads(path).length === 3, SETTLE_MS, 'every delivery once the endpoint answers');
    });

    it('an endpoint that cannot be reached: the attempt has no response code and names the cause, and the delivery waits to retry', async () => {
      const owner = await createTenant(app);
      const campaign = await createCampaign(app, owner);
      await createBehavior(app, owner, campaign.id, { name: 'Visited', event: 'visit', points: 3 });
      const customer = await createCustomer(app, owner);
      // A port nothing listens on: taken, then freed.
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise((resolve) => closed.close(resolve));
      const webhook = await subscribe(app, owner, { url: `http://127.0.0.1:${port}/gone`, event_types: ['points.credited'] }).expect(201);
      await api(app, owner).post(`/users/${customer.id}/events`).send({ events: { visit: 1 } }).expect(200);

      const deliveriesOf = async () => (await api(app, owner).get(`/management/webhooks/${webhook.body.webhook.id}/deliveries`).expect(200)).body;
      let answer = { deliveries: [] as Array<{ attempts: unknown[] }> };
      await waitFor(async () => (answer = await deliveriesOf()).deliveries[0]?.attempts.length > 0, SETTLE_MS, 'the first attempt to fail');
      expect(answer.deliveries).toEqual([
        expect.objectContaining({ type: 'points.credited', status: 'retrying', delivered_at: null, attempt_count: expect.any(Number) }),
      ]);
      expect(answer.deliveries[0].attempts[0]).toEqual({
        attempt: 1,
        status: 'failed',
        response_code: null,
        error: expect.stringMatching(/ECONNREFUSED/),
        duration_ms: expect.any(Number),
        started_at: expect.any(String),
        finished_at: expect.any(String),
      });
      await api(app, owner).delete(`/management/webhooks/${webhook.body.webhook.id}`).expect(200); // no more attempts
    });

    it('a perform (complete_campaign) delivers its webhook events too', async () => {
      const owner = await createTenant(app);
      const campaign = await createCampaign(app, owner);
      await createBehavior(app, owner, campaign.id, { name: 'Reviewed', event: 'review', points: 4 });
      const customer = await createCustomer(app, owner);
      const path = `/perform-${owner.organizationId}`;
      await subscribe(app, owner, { url: `${receiver.url}${path}`, event_types: ['behavior.completed', 'points.credited'] }).expect(201);
      await request(app.getHttpServer())
        .post(`/priv/v2/apps/${owner.apiKey}/users/${customer.id}/campaigns/${campaign.id}/perform`)
        .auth(owner.apiKey, owner.apiSecret)
        .send({ domain: 'complete_campaign' })
        .expect(200);
      await waitFor(() => payloads(path).length === 2, SETTLE_MS, 'the perform deliveries');
      expect(payloads(path).map((p) => p.type).sort()).toEqual(['behavior.completed', 'points.credited']);
      expect(payloads(path).find((p) => p.type === 'points.credited')!.data).toEqual(expect.objectContaining({ user_id: customer.id, points: 4, available_points: 4 }));
    });

    it("an organization's first webhook is picked up by its next event (evaluations before it built no webhook events)", async () => {
      const owner = await createTenant(app);
      const campaign = await createCampaign(app, owner);
      await createBehavior(app, owner, campaign.id, { name: 'Visited', event: 'visit', points: 3 });
      const customer = await createCustomer(app, owner);
      await api(app, owner).post(`/users/${customer.id}/events`).send({ events: { visit: 1 } }).expect(200);
      const [{ n }]: Array<{ n: number }> = await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE organization_id = $1`, [owner.organizationId]);
      expect(n).toBe(0);
      const path = `/first-${owner.organizationId}`;
      await subscribe(app, owner, { url: `${receiver.url}${path}`, event_types: ['points.credited'] }).expect(201);
      await api(app, owner).post(`/users/${customer.id}/events`).send({ events: { visit: 1 } }).expect(200);
      await waitFor(() => payloads(path).length === 1, SETTLE_MS, 'the first webhook delivery');
      expect(payloads(path)[0]).toEqual(expect.objectContaining({ type: 'points.credited', data: expect.objectContaining({ user_id: customer.id, points: 3, available_points: 6 }) }));
    });

    it('an event that completes nothing delivers nothing, and a deleted webhook gets nothing more', async () => {
      const customer = await createCustomer(app, tenant);
      await api(app, tenant).delete(`/management/webhooks/${pointsOnly.id}`).expect(200);
      const pointsBefore = receiver.received.filter((r) => r.path === `/points-${tenant.organizationId}`).length;
      const flakyBefore = receiver.received.filter((r) => r.path === flakyPath).length;
      await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { nothing_listens: 1 } }).expect(200);
      await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { signup: 1 } }).expect(200);
      await waitFor(() => payloads(flakyPath).filter((p) => p.data.user_id === customer.id).length === 4, SETTLE_MS, 'the flaky webhook deliveries');
      expect(receiver.received.filter((r) => r.path === flakyPath).length).toBe(flakyBefore + 4);
      expect(receiver.received.filter((r) => r.path === `/points-${tenant.organizationId}`).length).toBe(pointsBefore);
      const [{ n }]: Array<{ n: number }> = await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1`, [pointsOnly.id]);
      expect(n).toBe(2);
    });
  });
});
