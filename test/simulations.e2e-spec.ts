import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/queues/queue-names.js';
import { createTestApp } from './support/app.js';
import { expectError } from './support/errors.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor, withQueue } from './support/worker.js';
import { api, createTenant, type TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createBehaviors, type BehaviorSpec } from './factories/behavior.factory.js';
import { createCustomer } from './factories/customer.factory.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Customer = { id: string; external_id: string };

const DAY = 86_400_000;
/** Bounds on waiting, never expectations of speed. */
const SETTLE_MS = 60_000;

/**
 * Contract §15 end to end: events sent through V1 and V2 with a campaign live, then a draft copy of that campaign
 * simulated over the same stored events by the real worker, in the same organization: the same achievements and
 * points, caps, period windows, streaks in customers' time zones, raised events and budgets included.
 */
describe('simulations (contract §15)', () => {
  const prefix = ownQueuePrefix('simulations');
  let app: INestApplication;
  let worker: INestApplicationContext;
  let db: DataSource;

  beforeAll(async () => {
    app = await createTestApp({ queuePrefix: prefix });
    worker = await startTestWorker({ queuePrefix: prefix, workerQueues: ['events', 'simulations'] });
    db = app.get(DataSource);
  });
  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  const simulate = (tenant: TestTenant, campaignId: number, simulation: Json) =>
    api(app, tenant).post(`/management/campaigns/${campaignId}/simulations`).send({ simulation });

  /** Creates a simulation, waits for it to finish and answers it. */
  async function simulated(tenant: TestTenant, campaignId: number, simulation: Json): Promise<Json> {
    const res = await simulate(tenant, campaignId, simulation);
    expect(res.status).toBe(202);
    const id = res.body.simulation.id;
    let read: Json = {};
    await waitFor(
      async () => {
        read = (await api(app, tenant).get(`/management/simulations/${id}`).expect(200)).body.simulation;
        return read.status !== 'queued' && read.status !== 'running';
      },
      SETTLE_MS,
      'the simulation to finish',
    );
    return read;
  }

  async function sendV1(tenant: TestTenant, customer: Customer, events: Json, at: number): Promise<Json> {
    const res = await api(app, tenant).post(`/users/${customer.id}/events`).send({ events, date: new Date(at).toISOString() });
    expect(res.status).toBe(200);
    return res.body;
  }

  /** Sends V2 events and waits until the worker processed them all. */
  async function sendV2(tenant: TestTenant, events: Json[]): Promise<void> {
    const res = await request(app.getHttpServer()).post(`/priv/v2/apps/${tenant.apiKey}/events`).auth(tenant.apiKey, tenant.apiSecret).send({ events });
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: 'ok' } });
    await waitFor(
      async () => {
        const [{ pending }] = await db.query(`SELECT count(*)::int AS pending FROM events WHERE organization_id = $1 AND status = 'pending'`, [tenant.organizationId]);
        return pending === 0;
      },
      SETTLE_MS,
      'the V2 events to be processed',
    );
  }

  /** What the customers got live from the campaign: per behavior name, completions, customers and points. */
  async function liveResults(tenant: TestTenant, customers: Customer[]) {
    const behaviors: Record<string, { achievements: number; customers_achieved: number; points: number }> = {};
    let points = 0;
    let achievers = 0;
    for (const customer of customers) {
      const retrieval = (await api(app, tenant).get(`/users/${customer.id}/events`).expect(200)).body;
      const ledger = (await api(app, tenant).get(`/users/${customer.id}/points?limit=100`).expect(200)).body;
      points += ledger.available_points;
      let achieved = false;
      for (const [name, behavior] of Object.entries<Json>(retrieval.behaviors)) {
        const earned = ledger.entries.filter((e: Json) => e.behavior_name === name).reduce((sum: number, e: Json) => sum + e.amount, 0);
        if (behavior.achieved === 0 && earned === 0) continue;
        const into = (behaviors[name] ??= { achievements: 0, customers_achieved: 0, points: 0 });
        into.achievements += behavior.achieved;
        into.customers_achieved += behavior.achieved > 0 ? 1 : 0;
        into.points += earned;
        achieved ||= behavior.achieved > 0;
      }
      achievers += achieved ? 1 : 0;
    }
    const achievements = Object.values(behaviors).reduce((sum, b) => sum + b.achievements, 0);
    return { points, achievements, customers_achieved: achievers, behaviors };
  }

  describe('the same campaign live and simulated', () => {
    const behaviors: BehaviorSpec[] = [
      { name: 'Buyer', event: 'purchase', event_count: 2, points: 10, data: { max_times_achievable: 2 } },
      { name: 'Stores', event: 'store_visit', type: 'unique', unique_attribute: 'store_id', event_count: 2, points: 5 },
      { name: 'Weekly visit', event: 'visit', event_count: 1, points: 3, data: { period: 7 * 86_400, max_times_achievable_per_period: 1 } },
      { name: 'Streak', event: 'checkin', event_count: 3, points: 20, goal_data: { consecutive: true } },
      { name: 'Big buyer', event: 'purchase', event_count: 3, outcomes: [{ event: { name: 'bonus', by: 1 } }] },
      { name: 'Bonus', event: 'bonus', event_count: 1, points: 7 },
    ];
    let tenant: TestTenant;
    let live: { id: number; starts_at: string; ends_at: string };
    let draft: { id: number };
    let customers: Customer[];
    let sent: Map<string, number>;

    beforeAll(async () => {
      tenant = await createTenant(app, { time_zone: 'Europe/Paris' });
      const now = Date.now();
      live = await createCampaign(app, tenant, { starts_at: new Date(now - 30 * DAY).toISOString(), ends_at: new Date(now + 30 * DAY).toISOString() });
      await createBehaviors(app, tenant, live.id, behaviors);
      draft = await createCampaign(app, tenant, { status: 'draft', name: `Draft copy ${now}` });
      // Behavior names are unique in an organization: the copy's end in " copy".
      await createBehaviors(app, tenant, draft.id, behaviors.map((b) => ({ ...b, name: `${b.name} copy` })));
      customers = [
        await createCustomer(app, tenant, { time_zone: 'America/New_York' }),
        await createCustomer(app, tenant, { time_zone: 'Asia/Tokyo' }),
        await createCustomer(app, tenant, { time_zone: 'UTC' }),
      ];
      sent = new Map(customers.map((c) => [c.id, 0]));
      const day = (n: number, hourUtc: number) => Math.floor(now / DAY) * DAY - n * DAY + hourUtc * 3_600_000;
      // Days 12 to 6 ago through V1, one request an event, oldest first.
      for (const [i, customer] of customers.entries()) {
        for (let n = 12; n >= 6; n--) {
          await sendV1(tenant, customer, { purchase: 1 }, day(n, 9 + i));
          await sendV1(tenant, customer, { visit: 1, store_visit: { store_id: `s${n % (2 + i)}` } }, day(n, 10 + i));
        }
      }
      // Days 5 to 3 ago through V2: check-ins at 14:30 and 15:30 UTC, one local day apart in Tokyo only.
      await sendV2(
        tenant,
        customers.flatMap((c) =>
          [5, 4, 3].flatMap((n) => [
            { name: 'checkin', user_id: c.id, occurred_at: new Date(day(n, 14.5)).toISOString() },
            { name: 'visit', user_id: c.id, occurred_at: new Date(day(n, 15)).toISOString() },
            ...(n === 4 ? [{ name: 'checkin', user_id: c.id, occurred_at: new Date(day(n, 15.5)).toISOString() }] : []),
          ]),
        ),
      );
      for (const c of customers) sent.set(c.id, sent.get(c.id)! + 7 * 3 + 7);
      // Two days ago through V1 again: a purchase past Buyer's cap of 2 completions.
      for (const customer of customers) {
        await sendV1(tenant, customer, { purchase: 2 }, day(2, 12));
        sent.set(customer.id, sent.get(customer.id)! + 1);
      }
    }, 180_000);

    it('gives the achievements and points the live campaign gave, by behavior, from a draft copy', async () => {
      const expected = await liveResults(tenant, customers);
      expect(expected.achievements).toBeGreaterThan(10); // the scenario completes behaviors (a guard on the test itself)
      const simulation = await simulated(tenant, draft.id, { from: live.starts_at, to: live.ends_at });
      expect(simulation).toEqual(
        expect.objectContaining({ campaign_id: draft.id, status: 'completed', customers: 3, events_replayed: [...sent.values()].reduce((a, b) => a + b, 0) }),
      );
      const { results } = simulation;
      const behaviorsLive = Object.fromEntries(Object.entries(results.behaviors).map(([name, b]) => [name.replace(/ copy$/, ''), b]));
      expect({ points: results.points, achievements: results.achievements, customers_achieved: results.customers_achieved, behaviors: behaviorsLive }).toEqual(expected);
      // Every replayed event has a state; the days add up to the totals (every credit here comes with a completion).
      expect(Object.values<number>(results.states).reduce((a, b) => a + b, 0)).toBe(simulation.events_replayed);
      expect(results.states.qualified).toBeGreaterThan(0);
      expect(results.by_day.reduce((sum: number, d: Json) => sum + d.achievements, 0)).toBe(results.achievements);
      expect(results.by_day.reduce((sum: number, d: Json) => sum + d.points, 0)).toBe(results.points);
      expect(results.by_day.map((d: Json) => d.day)).toEqual([...results.by_day.map((d: Json) => d.day)].sort());
      // The organization has no tier: every replayed customer ends on none.
      expect(results.tiers).toEqual({ none: 3 });
      expect(simulation.explanations).toBeNull();
      // The live campaign's own progress, and the draft's, are as they were: nothing but the simulation is written.
      expect(await liveResults(tenant, customers)).toEqual(expected);
      const [{ rows }] = await db.query(
        `SELECT count(*)::int AS rows FROM customer_progress p JOIN behaviors b ON b.id = p.behavior_id WHERE b.campaign_id = $1`,
        [draft.id],
      );
      expect(rows).toBe(0);
    });

    it('gives the same results every time (determinism)', async () => {
      const first = await simulated(tenant, draft.id, { from: live.starts_at, to: live.ends_at });
      const second = await simulated(tenant, draft.id, { from: live.starts_at, to: live.ends_at });
      expect(second.results).toEqual(first.results);
      expect(second.events_replayed).toBe(first.events_replayed);
    });

    it('replays only the named customers and explains each of their events in order', async () => {
      const [one] = customers;
      const simulation = await simulated(tenant, draft.id, { from: live.starts_at, to: live.ends_at, customer_ids: [one.id], explain: true });
      expect(simulation).toEqual(expect.objectContaining({ status: 'completed', customers: 1, events_replayed: sent.get(one.id) }));
      expect(Object.keys(simulation.explanations)).toEqual([one.id]);
      const explained = simulation.explanations[one.id] as Json[];
      expect(explained.length).toBeGreaterThanOrEqual(sent.get(one.id)!);
      expect(explained[0]).toEqual(expect.objectContaining({ event: 'purchase' }));
    });

    it('replays only the events in the range: a range before every event replays nothing', async () => {
      const from = new Date(Date.parse(live.starts_at) - 10 * DAY).toISOString();
      const simulation = await simulated(tenant, draft.id, { from, to: live.starts_at });
      expect(simulation).toEqual(expect.objectContaining({ status: 'completed', customers: 0, events_replayed: 0 }));
      expect(simulation.results).toEqual({ points: 0, achievements: 0, customers_achieved: 0, behaviors: {}, by_day: [], states: {}, effects: {}, tiers: {} });
    });

    it('lists the campaign’s simulations newest first, without results', async () => {
      const list = (await api(app, tenant).get(`/management/campaigns/${draft.id}/simulations?limit=2`).expect(200)).body;
      expect(list).toEqual(expect.objectContaining({ status: 'ok', page: 1, limit: 2, total: 5 }));
      expect(list.simulations).toHaveLength(2);
      expect(list.simulations[0].id).toBeGreaterThan(list.simulations[1].id);
      expect(list.simulations[0]).toEqual(expect.objectContaining({ campaign_id: draft.id, status: 'completed', results: null, explanations: null }));
      expect((await api(app, tenant).get(`/management/campaigns/${live.id}/simulations`).expect(200)).body.simulations).toEqual([]);
    });
  });

  describe('budgets', () => {
    it('spends a simulated budget as the live one was spent: completions past it are budget_exhausted', async () => {
      const tenant = await createTenant(app);
      const budget = { max_completions: 2, max_points: null };
      const now = Date.now();
      const live = await createCampaign(app, tenant, { budget, starts_at: new Date(now - 10 * DAY).toISOString() });
      const draft = await createCampaign(app, tenant, { budget, status: 'draft', name: `Budget draft ${now}` });
      await createBehaviors(app, tenant, live.id, [{ name: 'Buyer', event: 'purchase', event_count: 1, points: 50 }]);
      await createBehaviors(app, tenant, draft.id, [{ name: 'Buyer copy', event: 'purchase', event_count: 1, points: 50 }]);
      const customers = [await createCustomer(app, tenant), await createCustomer(app, tenant), await createCustomer(app, tenant)];
      for (const [i, customer] of customers.entries()) await sendV1(tenant, customer, { purchase: 1 }, now - (5 - i) * DAY);
      const expected = await liveResults(tenant, customers);
      expect(expected).toEqual(expect.objectContaining({ achievements: 2, points: 100, customers_achieved: 2 }));

      const simulation = await simulated(tenant, draft.id, { from: live.starts_at, to: live.ends_at });
      expect(simulation.results).toEqual(
        expect.objectContaining({ achievements: 2, points: 100, customers_achieved: 2, behaviors: { 'Buyer copy': expected.behaviors.Buyer }, states: { budget_exhausted: 1, qualified: 2 } }),
      );
      // The draft's own budget is untouched: a simulation spends only its own copy.
      const read = (await api(app, tenant).get(`/management/campaigns/${draft.id}`).expect(200)).body.campaign;
      expect(read.budget_used).toEqual({ completions: 0, points: 0 });
    });
  });

  describe('requests', () => {
    let tenant: TestTenant;
    let other: TestTenant;
    let campaign: { id: number; starts_at: string; ends_at: string };

    beforeAll(async () => {
      tenant = await createTenant(app);
      other = await createTenant(app);
      campaign = await createCampaign(app, tenant, { status: 'draft' });
    });

    it('answers 202 with the simulation queued', async () => {
      const res = await simulate(tenant, campaign.id, { from: '2026-01-01T00:00:00Z', to: '2026-02-01 00:00:00 +0100' }).expect(202);
      expect(res.body).toEqual({
        status: 'ok',
        simulation: { id: expect.any(Number), campaign_id: campaign.id, status: 'queued', from: '2026-01-01T00:00:00.000Z', to: '2026-01-31T23:00:00.000Z' },
      });
    });

    it('refuses bad input with the contract’s codes, storing nothing', async () => {
      const before = (await api(app, tenant).get(`/management/campaigns/${campaign.id}/simulations`).expect(200)).body.total;
      const range = { from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z' };
      expectError(await api(app, tenant).post(`/management/campaigns/${campaign.id}/simulations`).send({}), 400, 'missing_data');
      expectError(await simulate(tenant, campaign.id, { from: range.from }), 400, 'missing_data');
      expectError(await simulate(tenant, campaign.id, { ...range, speed: 'fast' }), 400, 'argument_error');
      expect(expectError(await simulate(tenant, campaign.id, { from: range.to, to: range.from }), 400, 'validation')).toEqual(['simulation.to']);
      expect(expectError(await simulate(tenant, campaign.id, { from: 'yesterday', to: range.to }), 400, 'validation')).toEqual(['simulation.from']);
      expect(expectError(await simulate(tenant, campaign.id, { ...range, customer_ids: ['not-a-uuid'] }), 400, 'validation')).toEqual(['simulation.customer_ids']);
      expect(expectError(await simulate(tenant, campaign.id, { ...range, explain: true }), 400, 'validation')).toEqual(['simulation.explain']);
      const many = Array.from({ length: 101 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
      expect(expectError(await simulate(tenant, campaign.id, { ...range, customer_ids: many, explain: true }), 400, 'validation')).toEqual(['simulation.explain']);
      expect((await api(app, tenant).get(`/management/campaigns/${campaign.id}/simulations`).expect(200)).body.total).toBe(before);
    });

    it('answers not_found for another organization’s campaign or simulation, and for a deleted campaign', async () => {
      const range = { from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z' };
      const created = (await simulate(tenant, campaign.id, range).expect(202)).body.simulation;
      expectError(await simulate(other, campaign.id, range), 404, 'not_found');
      expectError(await api(app, other).get(`/management/simulations/${created.id}`), 404, 'not_found');
      expectError(await api(app, other).delete(`/management/simulations/${created.id}`), 404, 'not_found');
      expectError(await api(app, other).get(`/management/campaigns/${campaign.id}/simulations`), 404, 'not_found');
      expectError(await api(app, tenant).get('/management/simulations/999999999'), 404, 'not_found');
      expectError(await api(app, tenant).get('/management/simulations/abc'), 404, 'not_found');
      const gone = await createCampaign(app, tenant, { status: 'draft' });
      await api(app, tenant).delete(`/management/campaigns/${gone.id}`).expect(200);
      expectError(await simulate(tenant, gone.id, range), 404, 'not_found');
    });
  });

  describe('cancel', () => {
    it('cancels a queued simulation, which a worker started afterwards does not run; cancelling again answers it unchanged', async () => {
      // An API on a queue no worker reads: the simulation stays queued until cancelled.
      const idle = ownQueuePrefix('simulations-idle');
      const quiet = await createTestApp({ queuePrefix: idle });
      try {
        const tenant = await createTenant(quiet);
        const campaign = await createCampaign(quiet, tenant, { status: 'draft' });
        const created = (
          await api(quiet, tenant).post(`/management/campaigns/${campaign.id}/simulations`).send({ simulation: { from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z' } }).expect(202)
        ).body.simulation;
        const cancelled = (await api(quiet, tenant).delete(`/management/simulations/${created.id}`).expect(200)).body.simulation;
        expect(cancelled).toEqual(expect.objectContaining({ id: created.id, status: 'cancelled', results: null, completed_at: expect.any(String) }));
        const again = (await api(quiet, tenant).delete(`/management/simulations/${created.id}`).expect(200)).body.simulation;
        expect(again).toEqual(cancelled);

        // A worker now reads the queue: it takes the job (or finds none) and leaves the simulation as cancelled.
        const late = await startTestWorker({ queuePrefix: idle, workerQueues: ['simulations'] });
        try {
          await withQueue(QueueName.Simulations, idle, (queue) =>
            waitFor(async () => Object.values(await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized')).every((n) => n === 0), 30_000, 'the simulations queue emptied by the worker'),
          );
        } finally {
          await late.close();
        }
        expect((await api(quiet, tenant).get(`/management/simulations/${created.id}`).expect(200)).body.simulation).toEqual(cancelled);
      } finally {
        await quiet.close();
        await deleteQueueKeys(idle);
      }
    });

    it('a completed simulation stays completed when cancelled', async () => {
      const tenant = await createTenant(app);
      const campaign = await createCampaign(app, tenant, { status: 'draft' });
      const done = await simulated(tenant, campaign.id, { from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z' });
      expect(done.status).toBe('completed');
      expect((await api(app, tenant).delete(`/management/simulations/${done.id}`).expect(200)).body.simulation).toEqual(done);
    });
  });
});
