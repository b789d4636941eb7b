import type { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { createTestApp } from './support/app.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';

/**
 * V1 events under concurrency (contract §8: "concurrent requests for one customer must not lose updates"). The app
 * listens on a real port and the bursts are sent with fetch over separate connections, so the requests are in the
 * server at the same time; a counter on the HTTP server checks that they really overlapped.
 */

type Json = Record<string, unknown>;

interface Answer {
  status: number;
  body: Json & { errors?: { code: string; message: string } };
}

interface TimelineEntry {
  status: string;
  points_earned: number;
  transaction_id: string | null;
}

const BEHAVIOR_POINTS = 10;

describe('events under concurrency', () => {
  let app: INestApplication;
  let db: DataSource;
  let tenant: TestTenant;
  let baseUrl: string;
  let behavior: string;
  let inFlight = 0;
  let peakInFlight = 0;

  beforeAll(async () => {
    app = await createTestApp();
    await app.listen(0, '127.0.0.1');
    const server = app.getHttpServer() as Server;
    server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
      inFlight += 1;
      peakInFlight = Math.max(peakInFlight, inFlight);
      res.once('close', () => {
        inFlight -= 1;
      });
    });
    db = app.get(DataSource);
    tenant = await createTenant(app, { time_zone: 'UTC' });
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/priv/v1/apps/${tenant.apiKey}`;
    const campaign = await createCampaign(app, tenant);
    behavior = `Every ping ${Date.now().toString(36)}`;
    await api(app, tenant)
      .post(`/management/campaigns/${campaign.id}/behaviors/_batch`)
      .send({ behaviors: [{ name: behavior, points: BEHAVIOR_POINTS, data: {}, goal_groups: [{ goals: [{ achievement: { name: 'ping' } }] }] }] })
      .expect(201);
  });
  afterAll(() => app.close());

  /** Runs a burst of requests at once and answers them with the peak number of requests the server held together. */
  async function burst<T>(requests: Array<() => Promise<T>>): Promise<{ answers: T[]; peak: number }> {
    peakInFlight = inFlight;
    const answers = await Promise.all(requests.map((send) => send()));
    return { answers, peak: peakInFlight };
  }

  /** POST a V1 event body for a customer over its own HTTP request. */
  async function sendEvent(userId: string, body: Json): Promise<Answer> {
    const res = await fetch(`${baseUrl}/users/${userId}/events`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`${tenant.apiKey}:${tenant.apiSecret}`).toString('base64')}`,
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Answer['body'] };
  }

  async function getUser(userId: string): Promise<{ available_points: number; lifetime_points: number }> {
    const res = await api(app, tenant).get(`/users/${userId}`).expect(200);
    return { available_points: res.body.user.available_points, lifetime_points: res.body.user.lifetime_points };
  }

  async function achieved(userId: string): Promise<{ available_points: number; achieved: number }> {
    const res = await api(app, tenant).get(`/users/${userId}/events`).expect(200);
    return { available_points: res.body.available_points, achieved: res.body.behaviors[behavior].achieved };
  }

  async function timeline(userId: string): Promise<{ total: number; events: TimelineEntry[] }> {
    const res = await api(app, tenant).get(`/users/${userId}/timeline?limit=100`).expect(200);
    return res.body;
  }

  async function ledger(userId: string): Promise<{ rows: number; sum: number; amounts: number[]; events: number }> {
    const rows: Array<{ amount: number; event_id: string | null }> = await db.query(`SELECT amount, event_id FROM points_ledger WHERE customer_id = $1`, [userId]);
    return {
      rows: rows.length,
      sum: rows.reduce((total, r) => total + Number(r.amount), 0),
      amounts: [...new Set(rows.map((r) => Number(r.amount)))],
      events: new Set(rows.map((r) => r.event_id)).size,
    };
  }

  const multiplesOf = (step: number, n: number) => Array.from({ length: n }, (_, i) => step * (i + 1));
  const ascending = (values: number[]) => [...values].sort((a, b) => a - b);

  it('50 parallel requests for one customer are all processed: no lost update, exact points, ledger and timeline', async () => {
    const user = await createCustomer(app, tenant);
    const { answers, peak } = await burst(Array.from({ length: 50 }, () => () => sendEvent(user.id, { events: { ping: 1 } })));

    expect(peak).toBeGreaterThan(1);
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    for (const a of answers) {
      expect(a.body).toMatchObject({ status: 'ok', qualified: true, state: 'qualified', deltas: { [behavior]: { current_count: 0, achieved: 1, reset: true } } });
    }
    // Serialized per customer: each request saw every earlier one's points, so the answers are 10, 20, ..., 500.
    expect(ascending(answers.map((a) => a.body.available_points as number))).toEqual(multiplesOf(BEHAVIOR_POINTS, 50));

    expect(await getUser(user.id)).toEqual({ available_points: 500, lifetime_points: 500 });
    expect(await achieved(user.id)).toEqual({ available_points: 500, achieved: 50 });
    const events = await timeline(user.id);
    expect(events.total).toBe(50);
    expect(events.events.filter((e) => e.status === 'processed' && e.points_earned === BEHAVIOR_POINTS)).toHaveLength(50);
    expect(await ledger(user.id)).toEqual({ rows: 50, sum: 500, amounts: [BEHAVIOR_POINTS], events: 50 });
  });

  it('20 parallel requests with one transaction_id: one 200, nineteen 409 duplicate_transaction, points credited once', async () => {
    const user = await createCustomer(app, tenant);
    const transactionId = `tx-${randomUUID()}`;
    const { answers, peak } = await burst(Array.from({ length: 20 }, () => () => sendEvent(user.id, { events: { ping: 1 }, transaction_id: transactionId })));

    expect(peak).toBeGreaterThan(1);
    const ok = answers.filter((a) => a.status === 200);
    const duplicates = answers.filter((a) => a.status === 409);
    expect([ok.length, duplicates.length]).toEqual([1, 19]);
    expect(ok[0].body).toMatchObject({ status: 'ok', available_points: BEHAVIOR_POINTS, state: 'qualified' });
    for (const d of duplicates) {
      expect(d.body).toEqual({
        status: 'error',
        errors: expect.objectContaining({ code: 'duplicate_transaction', message: `transaction_id ${transactionId} has already been processed` }),
      });
    }

    expect(await getUser(user.id)).toEqual({ available_points: BEHAVIOR_POINTS, lifetime_points: BEHAVIOR_POINTS });
    expect(await achieved(user.id)).toEqual({ available_points: BEHAVIOR_POINTS, achieved: 1 });
    const events = await timeline(user.id);
    expect(events.total).toBe(1);
    expect(events.events[0]).toMatchObject({ status: 'processed', points_earned: BEHAVIOR_POINTS, transaction_id: transactionId });
    expect(await ledger(user.id)).toEqual({ rows: 1, sum: BEHAVIOR_POINTS, amounts: [BEHAVIOR_POINTS], events: 1 });
  });

  it('parallel requests for different customers of one organization all succeed, with exact totals for each', async () => {
    const customers = await Promise.all(Array.from({ length: 5 }, () => createCustomer(app, tenant)));
    const perCustomer = 10;
    // Interleaved: customer 0, 1, 2, 3, 4, 0, 1, ...
    const plan = Array.from({ length: customers.length * perCustomer }, (_, i) => customers[i % customers.length]);
    const { answers, peak } = await burst(plan.map((c) => () => sendEvent(c.id, { events: { ping: 1 } })));

    expect(peak).toBeGreaterThan(1);
    expect(answers.map((a) => a.status)).toEqual(Array(plan.length).fill(200));
    for (const [index, customer] of customers.entries()) {
      const own = answers.filter((_, i) => plan[i] === customer).map((a) => a.body.available_points as number);
      expect({ customer: index, points: ascending(own) }).toEqual({ customer: index, points: multiplesOf(BEHAVIOR_POINTS, perCustomer) });
    }
    for (const customer of customers) {
      const total = BEHAVIOR_POINTS * perCustomer;
      expect(await getUser(customer.id)).toEqual({ available_points: total, lifetime_points: total });
      expect(await achieved(customer.id)).toEqual({ available_points: total, achieved: perCustomer });
      expect((await timeline(customer.id)).total).toBe(perCustomer);
      expect(await ledger(customer.id)).toEqual({ rows: perCustomer, sum: total, amounts: [BEHAVIOR_POINTS], events: perCustomer });
    }
  });

  it('parallel read_only requests answer as if processed and change nothing', async () => {
    const user = await createCustomer(app, tenant);
    const first = await sendEvent(user.id, { events: { ping: 1 } });
    expect(first).toMatchObject({ status: 200, body: { available_points: BEHAVIOR_POINTS } });

    const { answers, peak } = await burst(Array.from({ length: 20 }, () => () => sendEvent(user.id, { events: { ping: 1 }, read_only: true })));

    expect(peak).toBeGreaterThan(1);
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    for (const a of answers) {
      expect(a.body).toMatchObject({
        status: 'ok',
        qualified: true,
        state: 'qualified',
        available_points: 2 * BEHAVIOR_POINTS,
        user: { available_points: 2 * BEHAVIOR_POINTS },
        deltas: { [behavior]: { current_count: 0, achieved: 1, reset: true } },
      });
    }

    expect(await getUser(user.id)).toEqual({ available_points: BEHAVIOR_POINTS, lifetime_points: BEHAVIOR_POINTS });
    expect(await achieved(user.id)).toEqual({ available_points: BEHAVIOR_POINTS, achieved: 1 });
    expect((await timeline(user.id)).total).toBe(1);
    expect(await ledger(user.id)).toEqual({ rows: 1, sum: BEHAVIOR_POINTS, amounts: [BEHAVIOR_POINTS], events: 1 });
  });
});
