import type { INestApplication } from '@nestjs/common';
import request, { type Response } from 'supertest';
import { DataSource } from 'typeorm';
import { createTestApp } from './support/app.js';
import { expectError } from './support/errors.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor } from './support/worker.js';
import { TEST_ADMIN_TOKEN } from './support/test-env.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { createTriggeredCreative } from './factories/creative.factory.js';
import { createBehavior, createBehaviors, CreatedBehavior } from './factories/behavior.factory.js';

const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';
const DAY = 86_400_000;

/** A JSON answer body (supertest types it as any). */
type Json = Response['body'];
type Customer = { id: string; external_id: string; division_id: number; time_zone: string };
type Campaign = { id: number; name: string; permalink: string };
type TimelineEvent = {
  name: string;
  occurred_at: string;
  division_id: number | null;
  status: string;
  reason: string | null;
  points_earned: number;
  source: string;
  transaction_id: string | null;
};

let seq = 0;
const uniq = (prefix: string) => `${prefix}-${++seq}-${Date.now().toString(36)}`;

describe('events V1', () => {
  let app: INestApplication;
  let db: DataSource;

  // A queue of this file's own, with no worker unless a test starts one: async events stay pending until then (the
  // workers of other files, on the run's queue, never take them).
  const prefix = ownQueuePrefix('events-v1');

  beforeAll(async () => {
    app = await createTestApp({ queuePrefix: prefix });
    db = app.get(DataSource);
  });
  afterAll(async () => {
    await app.close();
    await deleteQueueKeys(prefix);
  });

  const userPath = (c: Customer) => `/users/${c.id}`;
  const externalPath = (c: Customer) => `/external/users/${encodeURIComponent(c.external_id)}`;

  function send(tenant: TestTenant, path: string, body: unknown, query = ''): Promise<Response> {
    return api(app, tenant).post(`${path}${query ? `?${query}` : ''}`).send(body as object);
  }

  /** POST users/:user_id/events: 200 expected, answers the body. */
  async function sendOk(tenant: TestTenant, customer: Customer, body: unknown, query = ''): Promise<Json> {
    const res = await send(tenant, `${userPath(customer)}/events`, body, query);
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: expect.objectContaining({ status: 'ok' }) });
    return res.body;
  }

  async function timeline(tenant: TestTenant, customer: Customer): Promise<{ total: number; events: TimelineEvent[] }> {
    const res = await api(app, tenant).get(`/users/${customer.id}/timeline?limit=100`).expect(200);
    return res.body;
  }

  async function retrieval(tenant: TestTenant, customer: Customer, query = ''): Promise<Json> {
    const res = await api(app, tenant).get(`/users/${customer.id}/events${query ? `?${query}` : ''}`);
    expect(res.status).toBe(200);
    return res.body;
  }

  async function getUser(tenant: TestTenant, customer: Customer): Promise<Json> {
    const res = await api(app, tenant).get(`/users/${customer.id}`).expect(200);
    return res.body.user;
  }

  /** The progress (event count) of one goal in the retrieval answer. */
  async function goalCount(tenant: TestTenant, customer: Customer, behavior: string, goal: string): Promise<number> {
    const body = await retrieval(tenant, customer);
    return body.behaviors[behavior].goals[goal].progress.current_count;
  }

  const goalId = (b: CreatedBehavior, index = 0) => b.goal_groups[0].goals[index].achievement.id;

  async function createDivision(tenant: TestTenant, name: string, parentId: number): Promise<number> {
    const res = await api(app, tenant).post('/management/divisions').send({ division: { name, parent_id: parentId } });
    expect(res.status).toBe(201);
    return res.body.division.id;
  }

  async function secondApiKey(tenant: TestTenant): Promise<TestTenant> {
    const res = await request(app.getHttpServer())
      .post(`/admin/v1/organizations/${tenant.organizationId}/applications`)
      .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
      .send({ application: { name: 'POS' } })
      .expect(201);
    return { ...tenant, apiKey: res.body.api_key, apiSecret: res.body.api_secret };
  }

  // ---------------------------------------------------------------------------------------------------------------
  describe('the six POST routes', () => {
    let tenant: TestTenant;
    let other: TestTenant;
    let alpha: Campaign;
    let beta: Campaign;
    let alphaBehavior: CreatedBehavior;
    let betaBehavior: CreatedBehavior;

    beforeAll(async () => {
      tenant = await createTenant(app);
      other = await createTenant(app);
      alpha = await createCampaign(app, tenant, { permalink: uniq('alpha') });
      beta = await createCampaign(app, tenant, { permalink: uniq('beta') });
      alphaBehavior = await createBehavior(app, tenant, alpha.id, { name: 'Alpha visits', event: 'visit', event_count: 2, points: 10 });
      betaBehavior = await createBehavior(app, tenant, beta.id, { name: 'Beta visit', event: 'visit', event_count: 1, points: 5 });
    });

    /** The seed's behavior object for "Alpha visits" after one visit (1 of 2). */
    const alphaAfterOneVisit = () =>
      expect.objectContaining({
        id: alphaBehavior.id,
        campaign_id: alpha.id,
        event_name: 'visit',
        type: 'composite',
        points: 10,
        achieved: 0,
        can_skip: false,
        skipped: 0,
        max_times_repeatable: null,
        max_times_repeatable_per_period: null,
        min_time_between_events: null,
        consecutive: false,
        current_count: 0,
        total_count: 1,
        goals: {
          visit: expect.objectContaining({
            type: 'goal',
            points: 0,
            completed: false,
            required: false,
            earn_count: 2,
            group_id: 0,
            progress: expect.objectContaining({ event_name: 'visit', type: 'count', current_count: 1, total_count: 2 }),
          }),
        },
        groups: { 0: { type: 'group', current_count: 0, total_count: 1, num_goals: 1, completed: false } },
        deltas: expect.objectContaining({ current_count: 0, achieved: 0 }),
      });

    const betaCompletedOnce = () =>
      expect.objectContaining({
        id: betaBehavior.id,
        campaign_id: beta.id,
        event_name: 'visit',
        type: 'composite',
        points: 5,
        achieved: 1,
        current_count: 0,
        total_count: 1,
        goals: {
          visit: expect.objectContaining({
            type: 'goal',
            completed: false,
            earn_count: 1,
            group_id: 0,
            progress: expect.objectContaining({ current_count: 0, total_count: 1 }),
          }),
        },
        groups: { 0: { type: 'group', current_count: 0, total_count: 1, num_goals: 1, completed: false } },
        deltas: expect.objectContaining({ current_count: 0, achieved: 1, reset: true }),
      });

    it.each([
      ['users/:user_id/events', userPath],
      ['external/users/:external_id/events', externalPath],
    ])('POST %s answers 200 with the full V1 response over every live campaign', async (_label, path) => {
      const customer = await createCustomer(app, tenant);
      const res = await send(tenant, `${path(customer)}/events`, { events: { visit: 1 } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'ok',
        available_points: 5,
        notifications: [],
        user: { available_points: 5, tier: null },
        behaviors: { 'Alpha visits': alphaAfterOneVisit(), 'Beta visit': betaCompletedOnce() },
        deltas: { 'Alpha visits': { current_count: 0, achieved: 0 }, 'Beta visit': { current_count: 0, achieved: 1, reset: true } },
        qualified: true,
        state: 'qualified',
      });
      expect(res.body.behaviors['Alpha visits'].goals.visit.id).toBe(goalId(alphaBehavior));
      // Stored: retrieval and the customer show the same.
      const read = await retrieval(tenant, customer);
      expect(read.available_points).toBe(5);
      expect(read.behaviors['Alpha visits'].goals.visit.progress.current_count).toBe(1);
      expect(read.behaviors['Beta visit'].achieved).toBe(1);
      expect((await getUser(tenant, customer)).available_points).toBe(5);
    });

    it.each([
      ['users/:user_id/campaigns/:campaign_id/events', (c: Customer) => `${userPath(c)}/campaigns/${alpha.id}/events`],
      ['external/users/:external_id/campaigns/:campaign_id/events', (c: Customer) => `${externalPath(c)}/campaigns/${alpha.id}/events`],
      ['users/:user_id/external/campaigns/:permalink/events', (c: Customer) => `${userPath(c)}/external/campaigns/${alpha.permalink}/events`],
      [
        'external/users/:external_id/external/campaigns/:permalink/events',
        (c: Customer) => `${externalPath(c)}/external/campaigns/${alpha.permalink}/events`,
      ],
    ])('POST %s answers 200 limited to that campaign and processes only its rules', async (_label, path) => {
      const customer = await createCustomer(app, tenant);
      const res = await send(tenant, path(customer), { events: { visit: 1 } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'ok',
        available_points: 0,
        notifications: [],
        user: { available_points: 0, tier: null },
        behaviors: { 'Alpha visits': alphaAfterOneVisit() },
        deltas: { 'Alpha visits': { current_count: 0, achieved: 0 } },
        qualified: true,
        state: 'qualified',
      });
      // The other campaign's behavior, which listens to the same event, took nothing.
      const read = await retrieval(tenant, customer);
      expect(read.behaviors['Beta visit']).toEqual(expect.objectContaining({ achieved: 0 }));
      expect(read.behaviors['Beta visit'].goals.visit.progress.current_count).toBe(0);
      expect(read.behaviors['Alpha visits'].goals.visit.progress.current_count).toBe(1);
      expect(read.available_points).toBe(0);
    });

    it('a scoped request for an event the campaign does not listen to is answered with that campaign only and no progress', async () => {
      const customer = await createCustomer(app, tenant);
      const res = await send(tenant, `${userPath(customer)}/campaigns/${beta.id}/events`, { events: { unrelated_event: 1 } });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.behaviors)).toEqual(['Beta visit']);
      expect(res.body.behaviors['Beta visit'].achieved).toBe(0);
      expect(res.body.available_points).toBe(0);
    });

    it('an unscoped event that no campaign listens to is stored and answered 200 with empty behaviors', async () => {
      const customer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, customer, { events: { nobody_listens: 1 } });
      expect(body).toEqual(expect.objectContaining({ behaviors: {}, deltas: {}, notifications: [], available_points: 0 }));
      const { events } = await timeline(tenant, customer);
      expect(events).toEqual([expect.objectContaining({ name: 'nobody_listens', status: 'processed', reason: 'no_listening_campaign', points_earned: 0 })]);
    });

    it.each([
      ['0', '0'],
      ['a non-numeric id', 'abc'],
      ['an id beyond the integer range', '99999999999'],
    ])('a campaign id that cannot name a campaign (%s) → 404 No_active_campaign_found', async (_label, id) => {
      const customer = await createCustomer(app, tenant);
      expectError(await send(tenant, `${userPath(customer)}/campaigns/${id}/events`, { events: { visit: 1 } }), 404, 'No_active_campaign_found');
      expectError(await send(tenant, `${externalPath(customer)}/campaigns/${id}/events`, { events: { visit: 1 } }), 404, 'No_active_campaign_found');
      expect((await timeline(tenant, customer)).total).toBe(0);
    });

    describe('No_active_campaign_found', () => {
      const cases: Record<string, () => Promise<{ id: number | string; permalink: string }>> = {
        'an unknown campaign': async () => ({ id: 2_000_000_000, permalink: uniq('no-such-campaign') }),
        'a draft campaign': async () => createCampaign(app, tenant, { status: 'draft', permalink: uniq('draft') }),
        'a paused campaign': async () => createCampaign(app, tenant, { status: 'paused', permalink: uniq('paused') }),
        'a deleted campaign': async () => {
          const campaign = await createCampaign(app, tenant, { permalink: uniq('deleted') });
          await createBehavior(app, tenant, campaign.id, { name: uniq('Deleted behavior'), event: 'visit' });
          await api(app, tenant).delete(`/management/campaigns/${campaign.id}`).expect(200);
          return campaign;
        },
        "another organization's live campaign": async () => {
          const campaign = await createCampaign(app, other, { permalink: uniq('foreign') });
          await createBehavior(app, other, campaign.id, { name: 'Foreign visit', event: 'visit' });
          return campaign;
        },
      };

      it.each(Object.keys(cases))('answers 404 No_active_campaign_found on all four scoped routes for %s, storing nothing', async (label) => {
        const campaign = await cases[label]();
        const customer = await createCustomer(app, tenant);
        const paths = [
          `${userPath(customer)}/campaigns/${campaign.id}/events`,
          `${externalPath(customer)}/campaigns/${campaign.id}/events`,
          `${userPath(customer)}/external/campaigns/${campaign.permalink}/events`,
          `${externalPath(customer)}/external/campaigns/${campaign.permalink}/events`,
        ];
        for (const path of paths) {
          expectError(await send(tenant, path, { events: { visit: 1 } }), 404, 'No_active_campaign_found');
          expectError(await send(tenant, path, { events: { visit: 1 } }, 'qualify=true'), 404, 'No_active_campaign_found');
          expectError(await send(tenant, path, { events: { visit: 1 } }, 'async=true'), 404, 'No_active_campaign_found');
        }
        expect((await timeline(tenant, customer)).total).toBe(0);
        expect((await retrieval(tenant, customer)).available_points).toBe(0);
      });
    });
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('body forms', () => {
    let tenant: TestTenant;

    beforeAll(async () => {
      tenant = await createTenant(app);
      const campaign = await createCampaign(app, tenant);
      await createBehaviors(app, tenant, campaign.id, [
        { name: 'Count visits', event: 'visit', event_count: 100 },
        { name: 'Distinct stores', event: 'store_visit', type: 'unique', unique_attribute: 'store_id', event_count: 10 },
        { name: 'Mobile opens', event: 'app_open', event_count: 100, criteria: [{ field: 'context.app_name', op: 'eq', value: 'mobile' }] },
        { name: 'Two-day streak', event: 'checkin', event_count: 2, points: 7, goal_data: { consecutive: true } },
        { name: 'Read-only visits', event: 'ro_visit', event_count: 3, points: 25 },
      ]);
      const optIn = await createCampaign(app, tenant, { opt_in_required: true });
      await createBehavior(app, tenant, optIn.id, { name: 'Opt-in visits', event: 'opt_visit', event_count: 100 });
    });

    it('an integer count is one event of that count', async () => {
      const customer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, customer, { events: { visit: 3 } });
      expect(body.behaviors['Count visits'].goals.visit.progress.current_count).toBe(3);
      const { events } = await timeline(tenant, customer);
      expect(events).toEqual([expect.objectContaining({ name: 'visit', status: 'processed' })]);
      expect(await goalCount(tenant, customer, 'Count visits', 'visit')).toBe(3);
    });

    it('an object is one event whose attributes feed the goal (unique pivot), with deltas data', async () => {
      const customer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, customer, { events: { store_visit: { store_id: 's1', quantity: 2 } } });
      const behavior = body.behaviors['Distinct stores'];
      expect(behavior.goals.store_visit.progress).toEqual(expect.objectContaining({ type: 'unique', current_count: 1, total_count: 10 }));
      expect(behavior.deltas).toEqual(expect.objectContaining({ current_count: 0, achieved: 0, data: ['s1'] }));
      expect(await goalCount(tenant, customer, 'Distinct stores', 'store_visit')).toBe(1);
    });

    it('an array of objects is one event per element, evaluated in order', async () => {
      const customer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, customer, {
        events: { store_visit: [{ store_id: 's1' }, { store_id: 's2' }, { store_id: 's1' }, { store_id: 's3' }] },
      });
      expect(body.behaviors['Distinct stores'].goals.store_visit.progress.current_count).toBe(3);
      expect(body.behaviors['Distinct stores'].deltas.data).toEqual(['s1', 's2', 's3']);
      const { events } = await timeline(tenant, customer);
      expect(events).toHaveLength(4);
      expect(events.every((e) => e.name === 'store_visit' && e.status === 'processed')).toBe(true);
    });

    it('context is read by goal criteria and is not an attribute', async () => {
      const customer = await createCustomer(app, tenant);
      await sendOk(tenant, customer, { events: { app_open: { context: { app_name: 'mobile' } } } });
      await sendOk(tenant, customer, { events: { app_open: { context: { app_name: 'web' } } } });
      // An attribute named like the context key does not satisfy context.app_name.
      await sendOk(tenant, customer, { events: { app_open: { app_name: 'mobile' } } });
      await sendOk(tenant, customer, { events: { app_open: [{ context: { app_name: 'mobile' } }, { context: { app_name: 'mobile', version: '2.1' } }] } });
      expect(await goalCount(tenant, customer, 'Mobile opens', 'app_open')).toBe(3);
    });

    it.each([
      ['an ISO 8601 datetime', '2026-01-05T10:00:00Z', '2026-01-05T10:00:00.000Z'],
      ['an ISO 8601 datetime with an offset and milliseconds', '2026-01-05T10:00:00.250+02:00', '2026-01-05T08:00:00.250Z'],
      ["the seed's `2026-01-05 10:00:00 +0200` form", '2026-01-05 10:00:00 +0200', '2026-01-05T08:00:00.000Z'],
    ])('date as %s sets occurred_at (timeline, in UTC)', async (_label, date, expected) => {
      const customer = await createCustomer(app, tenant);
      await sendOk(tenant, customer, { events: { visit: 1 }, date });
      const { events } = await timeline(tenant, customer);
      expect(events).toEqual([expect.objectContaining({ name: 'visit', occurred_at: expected, status: 'processed' })]);
    });

    it('without date, occurred_at is the time of the request (between two server timestamps taken around it)', async () => {
      const customer = await createCustomer(app, tenant);
      await sendOk(tenant, customer, { events: { visit: 1 } });
      const later = await createCustomer(app, tenant);
      const [event] = (await timeline(tenant, customer)).events;
      expect(event.occurred_at).toMatch(ISO_UTC_MS);
      const created = (c: Customer) => Date.parse((c as Customer & { created_at: string }).created_at);
      expect(Date.parse(event.occurred_at)).toBeGreaterThanOrEqual(created(customer));
      expect(Date.parse(event.occurred_at)).toBeLessThanOrEqual(created(later));
    });

    it('occurred_on decides the day: the same instant on two consecutive occurred_on days makes a 2-day streak', async () => {
      const customer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, customer, {
        events: { checkin: [{ occurred_on: '2026-01-05' }, { occurred_on: '2026-01-06' }] },
        date: '2026-01-06T12:00:00Z',
      });
      expect(body.behaviors['Two-day streak']).toEqual(expect.objectContaining({ achieved: 1, deltas: expect.objectContaining({ achieved: 1 }) }));
      expect(body.user.available_points).toBe(7);
    });

    it('without occurred_on, two events at the same instant are one day: no streak', async () => {
      const customer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, customer, { events: { checkin: [{}, {}] }, date: '2026-01-06T12:00:00Z' });
      expect(body.behaviors['Two-day streak'].achieved).toBe(0);
      expect(body.behaviors['Two-day streak'].goals.checkin.progress.current_count).toBe(1);
    });

    it("without occurred_on, the customer's time zone decides the day", async () => {
      const customer = await createCustomer(app, tenant, { time_zone: 'America/New_York' });
      // 03:00Z on Jan 6 is Jan 5 in New York; 12:00Z on Jan 6 is Jan 6: two days in a row.
      await sendOk(tenant, customer, { events: { checkin: 1 }, date: '2026-01-06T03:00:00Z' });
      const body = await sendOk(tenant, customer, { events: { checkin: 1 }, date: '2026-01-06T12:00:00Z' });
      expect(body.behaviors['Two-day streak'].achieved).toBe(1);
      const utcCustomer = await createCustomer(app, tenant, { time_zone: 'UTC' });
      await sendOk(tenant, utcCustomer, { events: { checkin: 1 }, date: '2026-01-06T03:00:00Z' });
      const utcBody = await sendOk(tenant, utcCustomer, { events: { checkin: 1 }, date: '2026-01-06T12:00:00Z' });
      expect(utcBody.behaviors['Two-day streak'].achieved).toBe(0);
    });

    it('transaction_id is recorded with the event', async () => {
      const customer = await createCustomer(app, tenant);
      const transactionId = uniq('tx');
      await sendOk(tenant, customer, { events: { visit: 1 }, transaction_id: transactionId });
      const { events } = await timeline(tenant, customer);
      expect(events).toEqual([expect.objectContaining({ name: 'visit', transaction_id: transactionId, source: 'v1' })]);
    });

    it('read_only: true answers the evaluation but stores nothing; a later real event starts from scratch', async () => {
      const customer = await createCustomer(app, tenant);
      const preview = await sendOk(tenant, customer, { events: { ro_visit: 2 }, read_only: true });
      expect(preview.behaviors['Read-only visits'].goals.ro_visit.progress.current_count).toBe(2);
      expect(preview.state).toBe('qualified');

      const completion = await sendOk(tenant, customer, { events: { ro_visit: 3 }, read_only: true, transaction_id: uniq('ro') });
      expect(completion).toEqual(
        expect.objectContaining({
          available_points: 25,
          user: { available_points: 25, tier: null },
          deltas: { 'Read-only visits': { current_count: 0, achieved: 1, reset: true } },
        }),
      );
      expect(completion.behaviors['Read-only visits'].achieved).toBe(1);

      expect((await timeline(tenant, customer)).total).toBe(0);
      const read = await retrieval(tenant, customer);
      expect(read.available_points).toBe(0);
      expect(read.behaviors['Read-only visits']).toEqual(expect.objectContaining({ achieved: 0, current_count: 0 }));
      expect(read.behaviors['Read-only visits'].goals.ro_visit.progress.current_count).toBe(0);
      expect(await getUser(tenant, customer)).toEqual(expect.objectContaining({ available_points: 0, lifetime_points: 0 }));

      const real = await sendOk(tenant, customer, { events: { ro_visit: 1 } });
      expect(real.behaviors['Read-only visits'].goals.ro_visit.progress.current_count).toBe(1);
      expect(real.behaviors['Read-only visits'].achieved).toBe(0);
      expect(real.user.available_points).toBe(0);
    });

    it('body qualify: true opts the customer into an opt_in_required campaign; before that events are stored, not processed', async () => {
      const customer = await createCustomer(app, tenant);
      const before = await sendOk(tenant, customer, { events: { opt_visit: 1 } });
      expect(before).toEqual(expect.objectContaining({ qualified: false, state: 'events_not_qualified', deltas: {} }));
      expect(before.behaviors['Opt-in visits'].goals.opt_visit.progress.current_count).toBe(0);
      expect((await timeline(tenant, customer)).events).toEqual([expect.objectContaining({ name: 'opt_visit', status: 'stored' })]);

      const opting = await sendOk(tenant, customer, { events: { opt_visit: 1 }, qualify: true });
      expect(opting).toEqual(expect.objectContaining({ qualified: true, state: 'qualified' }));
      expect(opting.behaviors['Opt-in visits'].goals.opt_visit.progress.current_count).toBe(1);

      // Once qualified, the customer stays qualified.
      const after = await sendOk(tenant, customer, { events: { opt_visit: 1 } });
      expect(after.state).toBe('qualified');
      expect(await goalCount(tenant, customer, 'Opt-in visits', 'opt_visit')).toBe(2);
    });

    it('read_only with qualify: true previews the opt-in but does not qualify the customer', async () => {
      const customer = await createCustomer(app, tenant);
      const preview = await sendOk(tenant, customer, { events: { opt_visit: 1 }, qualify: true, read_only: true });
      expect(preview.state).toBe('qualified');
      const later = await sendOk(tenant, customer, { events: { opt_visit: 1 } });
      expect(later.state).toBe('events_not_qualified');
    });
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('query modes', () => {
    let tenant: TestTenant;
    let optA: Campaign;
    let optB: Campaign;
    let plain: Campaign;
    let explained: CreatedBehavior;

    beforeAll(async () => {
      tenant = await createTenant(app);
      optA = await createCampaign(app, tenant, { opt_in_required: true });
      optB = await createCampaign(app, tenant, { opt_in_required: true });
      plain = await createCampaign(app, tenant, { name: uniq('Plain campaign') });
      await createBehavior(app, tenant, optA.id, { name: 'Opt A', event: 'join_visit', event_count: 10 });
      await createBehavior(app, tenant, optB.id, { name: 'Opt B', event: 'join_visit', event_count: 10 });
      await createBehavior(app, tenant, plain.id, { name: 'Plain visits', event: 'plain_visit', event_count: 10 });
      explained = await createBehavior(app, tenant, plain.id, {
        name: 'Explained',
        goals: [
          { name: 'any open', event: 'explain_open', event_count: 2 },
          { name: 'mobile open', event: 'explain_open', event_count: 1, criteria: [{ field: 'context.app_name', op: 'eq', value: 'mobile' }] },
        ],
      });
    });

    it('qualify=true when not qualified: one qualification notification per campaign checked, nothing stored', async () => {
      const customer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, customer, { events: { join_visit: 1 } }, 'qualify=true');
      expect(body).toEqual({
        status: 'ok',
        qualified: false,
        state: 'events_not_qualified',
        notifications: expect.any(Array),
      });
      const notifications = [...body.notifications].sort((a, b) => a.campaign_id - b.campaign_id);
      expect(notifications).toEqual(
        [optA.id, optB.id].map((campaignId) => ({
          type: 'qualification',
          campaign_id: campaignId,
          data: { state: 'events_not_qualified', message: expect.any(String) },
        })),
      );
      expect((await timeline(tenant, customer)).total).toBe(0);
    });

    it('qualify=true when qualified: qualified, state qualified, empty notifications, nothing stored', async () => {
      const customer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, customer, { events: { plain_visit: 4 } }, 'qualify=true');
      expect(body).toEqual({ status: 'ok', qualified: true, state: 'qualified', notifications: [] });
      expect((await timeline(tenant, customer)).total).toBe(0);
      expect(await goalCount(tenant, customer, 'Plain visits', 'plain_visit')).toBe(0);
    });

    it('qualify=true with body qualify: true checks the opt-in without qualifying the customer', async () => {
      const customer = await createCustomer(app, tenant);
      const check = await sendOk(tenant, customer, { events: { join_visit: 1 }, qualify: true }, 'qualify=true');
      expect(check).toEqual({ status: 'ok', qualified: true, state: 'qualified', notifications: [] });
      const later = await sendOk(tenant, customer, { events: { join_visit: 1 } });
      expect(later.state).toBe('events_not_qualified');
    });

    it('qualify=false processes normally', async () => {
      const customer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, customer, { events: { plain_visit: 1 } }, 'qualify=false');
      expect(body.behaviors['Plain visits'].goals.plain_visit.progress.current_count).toBe(1);
    });

    it('async=true answers {status: ok} and stores the event as pending from v1_async, processed by a worker later', async () => {
      const customer = await createCustomer(app, tenant);
      const transactionId = uniq('async');
      const res = await send(tenant, `${userPath(customer)}/events`, { events: { plain_visit: 2 }, transaction_id: transactionId, date: '2026-01-05T10:00:00Z' }, 'async=true');
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: 'ok' } });
      const stored = { name: 'plain_visit', occurred_at: '2026-01-05T10:00:00.000Z', source: 'v1_async', transaction_id: transactionId };
      expect((await timeline(tenant, customer)).events).toEqual([expect.objectContaining({ ...stored, status: 'pending', points_earned: 0 })]);
      expect(await goalCount(tenant, customer, 'Plain visits', 'plain_visit')).toBe(0);

      // A worker on this queue processes it: the instance's count of 2 reaches the goal.
      const worker = await startTestWorker({ queuePrefix: prefix, workerQueues: ['events'] });
      try {
        await waitFor(async () => (await timeline(tenant, customer)).events[0]?.status === 'processed', 30_000, 'the async event processed');
      } finally {
        await worker.close();
      }
      expect((await timeline(tenant, customer)).events).toEqual([expect.objectContaining({ ...stored, status: 'processed' })]);
      expect(await goalCount(tenant, customer, 'Plain visits', 'plain_visit')).toBe(2);
    });

    it('async=true by external_id stores one pending event per instance', async () => {
      const customer = await createCustomer(app, tenant);
      const res = await send(tenant, `${externalPath(customer)}/events`, { events: { plain_visit: [{ a: 1 }, { a: 2 }] } }, 'async=true');
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: 'ok' } });
      const { events } = await timeline(tenant, customer);
      expect(events.map((e) => [e.name, e.status, e.source])).toEqual([
        ['plain_visit', 'pending', 'v1_async'],
        ['plain_visit', 'pending', 'v1_async'],
      ]);
    });

    it('explain=true adds an explanation naming the campaign, behaviors and goals with their verdicts', async () => {
      const customer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, customer, { events: { explain_open: { context: { app_name: 'web' } } }, date: '2026-01-05T10:00:00Z' }, 'explain=true');
      expect(body.explanation).toEqual([
        {
          event_index: 0,
          event: 'explain_open',
          occurred_at: '2026-01-05T10:00:00.000Z',
          depth: 0,
          detail: expect.any(String),
          campaigns: [
            {
              campaign_id: plain.id,
              campaign_name: plain.name,
              state: 'qualified',
              detail: expect.any(String),
              behaviors: [
                {
                  behavior_id: explained.id,
                  behavior_name: 'Explained',
                  verdict: 'progressed',
                  detail: expect.any(String),
                  goals: [
                    { goal_id: goalId(explained, 0), goal_name: 'any open', verdict: 'counted', detail: expect.any(String) },
                    { goal_id: goalId(explained, 1), goal_name: 'mobile open', verdict: 'criteria_failed', detail: expect.stringContaining('context.app_name') },
                  ],
                },
              ],
            },
          ],
        },
      ]);
      const completing = await sendOk(tenant, customer, { events: { explain_open: { context: { app_name: 'mobile' } } } }, 'explain=true');
      const behavior = completing.explanation[0].campaigns[0].behaviors[0];
      expect(behavior).toEqual(expect.objectContaining({ behavior_name: 'Explained', verdict: 'completed' }));
      expect(behavior.goals.map((g: { verdict: string }) => g.verdict)).toEqual(['counted', 'counted']);
    });

    it('explain=true names a campaign that did not qualify with its state', async () => {
      const customer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, customer, { events: { join_visit: 1 } }, 'explain=true');
      const campaigns = [...body.explanation[0].campaigns].sort((a, b) => a.campaign_id - b.campaign_id);
      expect(campaigns).toEqual([
        expect.objectContaining({ campaign_id: optA.id, state: 'events_not_qualified', behaviors: [] }),
        expect.objectContaining({ campaign_id: optB.id, state: 'events_not_qualified', behaviors: [] }),
      ]);
    });

    it('without explain=true there is no explanation', async () => {
      const customer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, customer, { events: { explain_open: 1 } });
      expect(body).not.toHaveProperty('explanation');
      const explicitFalse = await sendOk(tenant, customer, { events: { explain_open: 1 } }, 'explain=false');
      expect(explicitFalse).not.toHaveProperty('explanation');
    });
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('states', () => {
    let tenant: TestTenant;

    beforeAll(async () => {
      tenant = await createTenant(app);
    });

    /** Sends the event with qualify=true first (check only), then for real; both must name the same state. */
    async function stateOf(customer: Customer, events: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Json> {
      const check = await sendOk(tenant, customer, { events, ...extra }, 'qualify=true');
      const body = await sendOk(tenant, customer, { events, ...extra });
      expect(check.state).toBe(body.state);
      expect(check.qualified).toBe(body.qualified);
      return body;
    }

    /** The not-qualified answer: state, qualified false, no deltas, and the behavior shown without progress. */
    function expectFailure(body: Json, state: string, behavior: string, goal: string) {
      expect(body).toEqual(expect.objectContaining({ status: 'ok', qualified: false, state, deltas: {} }));
      expect(body.behaviors[behavior].goals[goal].progress.current_count).toBe(0);
      expect(body.behaviors[behavior].achieved).toBe(0);
    }

    it('qualified: a live running campaign listening to the event', async () => {
      const campaign = await createCampaign(app, tenant);
      await createBehavior(app, tenant, campaign.id, { name: 'S qualified', event: 's_qualified', event_count: 5 });
      const customer = await createCustomer(app, tenant);
      const body = await stateOf(customer, { s_qualified: 1 });
      expect(body).toEqual(expect.objectContaining({ qualified: true, state: 'qualified', deltas: { 'S qualified': { current_count: 0, achieved: 0 } } }));
      expect(body.behaviors['S qualified'].goals.s_qualified.progress.current_count).toBe(1);
    });

    it('campaign_not_started: a live campaign starting tomorrow; qualify=true names it in a qualification notification', async () => {
      const now = Date.now();
      const campaign = await createCampaign(app, tenant, { starts_at: new Date(now + DAY).toISOString(), ends_at: new Date(now + 30 * DAY).toISOString() });
      await createBehavior(app, tenant, campaign.id, { name: 'S not started', event: 's_not_started' });
      const customer = await createCustomer(app, tenant);
      const check = await sendOk(tenant, customer, { events: { s_not_started: 1 } }, 'qualify=true');
      expect(check).toEqual({
        status: 'ok',
        qualified: false,
        state: 'campaign_not_started',
        notifications: [{ type: 'qualification', campaign_id: campaign.id, data: { state: 'campaign_not_started', message: expect.any(String) } }],
      });
      expectFailure(await stateOf(customer, { s_not_started: 1 }), 'campaign_not_started', 'S not started', 's_not_started');
      // Live but not started is still an active campaign for a scoped request: 200, not No_active_campaign_found.
      const scoped = await send(tenant, `${userPath(customer)}/campaigns/${campaign.id}/events`, { events: { s_not_started: 1 } });
      expect(scoped.status).toBe(200);
      expect(scoped.body).toEqual(expect.objectContaining({ qualified: false, state: 'campaign_not_started' }));
    });

    it('campaign_over: a live campaign that ended yesterday', async () => {
      const now = Date.now();
      const campaign = await createCampaign(app, tenant, { starts_at: new Date(now - 30 * DAY).toISOString(), ends_at: new Date(now - DAY).toISOString() });
      await createBehavior(app, tenant, campaign.id, { name: 'S over', event: 's_over' });
      const customer = await createCustomer(app, tenant);
      expectFailure(await stateOf(customer, { s_over: 1 }), 'campaign_over', 'S over', 's_over');
    });

    it('not_targeted_to_campaign: campaign targeting on user.tags', async () => {
      const campaign = await createCampaign(app, tenant, { targeting: [{ field: 'user.tags', op: 'contains', value: 'vip' }] });
      await createBehavior(app, tenant, campaign.id, { name: 'S targeted', event: 's_targeted', event_count: 5 });
      const regular = await createCustomer(app, tenant, { tags: ['regular'] });
      expectFailure(await stateOf(regular, { s_targeted: 1 }), 'not_targeted_to_campaign', 'S targeted', 's_targeted');
      const vip = await createCustomer(app, tenant, { tags: ['vip'] });
      const body = await stateOf(vip, { s_targeted: 1 });
      expect(body.state).toBe('qualified');
      expect(body.behaviors['S targeted'].goals.s_targeted.progress.current_count).toBe(1);
    });

    it('events_not_qualified: an opt-in campaign the customer has not qualified for', async () => {
      const campaign = await createCampaign(app, tenant, { opt_in_required: true });
      await createBehavior(app, tenant, campaign.id, { name: 'S opt-in', event: 's_opt_in', event_count: 5 });
      const customer = await createCustomer(app, tenant);
      expectFailure(await stateOf(customer, { s_opt_in: 1 }), 'events_not_qualified', 'S opt-in', 's_opt_in');
      const qualifying = await stateOf(customer, { s_opt_in: 1 }, { qualify: true });
      expect(qualifying.state).toBe('qualified');
    });

    it('missing_prerequisites until the prerequisite campaign is completed', async () => {
      const prerequisite = await createCampaign(app, tenant);
      await createBehavior(app, tenant, prerequisite.id, { name: 'S prerequisite', event: 's_pre_step', data: { max_times_achievable: 1 } });
      const main = await createCampaign(app, tenant, { prerequisite_campaign_ids: [prerequisite.id] });
      await createBehavior(app, tenant, main.id, { name: 'S main', event: 's_main_step', event_count: 5 });
      const customer = await createCustomer(app, tenant);
      expectFailure(await stateOf(customer, { s_main_step: 1 }), 'missing_prerequisites', 'S main', 's_main_step');
      const done = await sendOk(tenant, customer, { events: { s_pre_step: 1 } });
      expect(done.behaviors['S prerequisite'].achieved).toBe(1);
      const body = await stateOf(customer, { s_main_step: 1 });
      expect(body.state).toBe('qualified');
      expect(body.behaviors['S main'].goals.s_main_step.progress.current_count).toBe(1);
    });

    it('reached_frequency_cap: a behavior at its total cap takes no more progress', async () => {
      const campaign = await createCampaign(app, tenant);
      await createBehavior(app, tenant, campaign.id, { name: 'S capped', event: 's_capped', points: 10, data: { max_times_achievable: 1 } });
      const customer = await createCustomer(app, tenant);
      const first = await sendOk(tenant, customer, { events: { s_capped: 1 } });
      expect(first).toEqual(expect.objectContaining({ state: 'qualified', available_points: 10 }));
      const second = await stateOf(customer, { s_capped: 1 });
      expect(second).toEqual(expect.objectContaining({ qualified: false, state: 'reached_frequency_cap', deltas: {}, available_points: 10 }));
      expect(second.behaviors['S capped']).toEqual(expect.objectContaining({ achieved: 1, max_times_repeatable: 1 }));
      const explained = await sendOk(tenant, customer, { events: { s_capped: 1 } }, 'explain=true');
      expect(explained.explanation[0].campaigns[0].behaviors[0]).toEqual(expect.objectContaining({ behavior_name: 'S capped', verdict: 'cap_reached' }));
      expect((await retrieval(tenant, customer)).available_points).toBe(10);
    });

    it('reached_frequency_period_cap: a behavior at its per-period cap', async () => {
      const campaign = await createCampaign(app, tenant);
      await createBehavior(app, tenant, campaign.id, {
        name: 'S period capped',
        event: 's_period',
        points: 3,
        data: { period: 30 * 86_400, max_times_achievable_per_period: 1 },
      });
      const customer = await createCustomer(app, tenant);
      expect((await sendOk(tenant, customer, { events: { s_period: 1 } })).state).toBe('qualified');
      const second = await stateOf(customer, { s_period: 1 });
      expect(second).toEqual(expect.objectContaining({ qualified: false, state: 'reached_frequency_period_cap', deltas: {}, available_points: 3 }));
      expect(second.behaviors['S period capped']).toEqual(
        expect.objectContaining({ achieved: 1, max_times_repeatable: null, max_times_repeatable_per_period: 1, period: 30 * 86_400 }),
      );
    });

    it('an unscoped request is qualified when any listening campaign qualifies', async () => {
      const open = await createCampaign(app, tenant);
      const optIn = await createCampaign(app, tenant, { opt_in_required: true });
      await createBehavior(app, tenant, open.id, { name: 'S mixed open', event: 's_mixed', event_count: 5 });
      await createBehavior(app, tenant, optIn.id, { name: 'S mixed opt-in', event: 's_mixed', event_count: 5 });
      const customer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, customer, { events: { s_mixed: 1 } });
      expect(body).toEqual(expect.objectContaining({ qualified: true, state: 'qualified', deltas: { 'S mixed open': { current_count: 0, achieved: 0 } } }));
      expect(body.behaviors['S mixed open'].goals.s_mixed.progress.current_count).toBe(1);
      expect(body.behaviors['S mixed opt-in'].goals.s_mixed.progress.current_count).toBe(0);
      // Scoped to the opt-in campaign, the same event is not qualified.
      const scoped = await send(tenant, `${userPath(customer)}/campaigns/${optIn.id}/events`, { events: { s_mixed: 1 } });
      expect(scoped.body).toEqual(expect.objectContaining({ qualified: false, state: 'events_not_qualified' }));
    });
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('errors', () => {
    let tenant: TestTenant;
    let other: TestTenant;
    let campaign: Campaign;

    beforeAll(async () => {
      tenant = await createTenant(app);
      other = await createTenant(app);
      campaign = await createCampaign(app, tenant);
      await createBehavior(app, tenant, campaign.id, { name: 'E visits', event: 'visit', event_count: 100 });
    });

    it.each([
      ['a body without events', {}],
      ['events: {}', { events: {} }],
      ['events: null', { events: null }],
      ['a body with date but no events', { date: '2026-01-05T10:00:00Z' }],
    ])('%s → 400 missing_event_data', async (_label, body) => {
      const customer = await createCustomer(app, tenant);
      for (const path of [`${userPath(customer)}/events`, `${externalPath(customer)}/events`, `${userPath(customer)}/campaigns/${campaign.id}/events`]) {
        expectError(await send(tenant, path, body), 400, 'missing_event_data');
        expectError(await send(tenant, path, body, 'async=true'), 400, 'missing_event_data');
        expectError(await send(tenant, path, body, 'qualify=true'), 400, 'missing_event_data');
      }
      expect((await timeline(tenant, customer)).total).toBe(0);
    });

    it.each([
      ['events that is an array', { events: [{ visit: 1 }] }],
      ['events that is a string', { events: 'visit' }],
      ['a zero count', { events: { visit: 0 } }],
      ['a negative count', { events: { visit: -2 } }],
      ['a decimal count', { events: { visit: 1.5 } }],
      ['a string count', { events: { visit: '3' } }],
      ['a count over 1,000,000', { events: { visit: 1_000_001 } }],
      ['more than 100 event instances', { events: { visit: Array.from({ length: 101 }, () => ({})) } }],
      ['an empty array of events', { events: { visit: [] } }],
      ['a nested attribute object', { events: { visit: { store: { id: 's1' } } } }],
      ['an attribute that is an array', { events: { visit: { stores: ['s1', 's2'] } } }],
      ['an attribute that is null', { events: { visit: { store_id: null } } }],
      ['a context with a nested value', { events: { visit: { context: { device: { os: 'ios' } } } } }],
      ['a context with an array value', { events: { visit: { context: { tags: ['a'] } } } }],
      ['a context that is not an object', { events: { visit: { context: 'mobile' } } }],
      ['an invalid occurred_on (month 13)', { events: { visit: { occurred_on: '2026-13-01' } } }],
      ['an invalid occurred_on (not a date)', { events: { visit: { occurred_on: 'yesterday' } } }],
      ['an occurred_on datetime', { events: { visit: { occurred_on: '2026-01-05T10:00:00Z' } } }],
      ['an invalid occurred_on inside an array', { events: { visit: [{ occurred_on: '2026-01-05' }, { occurred_on: '2026-02-30' }] } }],
      ['an invalid date', { events: { visit: 1 }, date: 'tomorrow' }],
      ['read_only that is not a boolean', { events: { visit: 1 }, read_only: 'yes' }],
      ['qualify that is not a boolean', { events: { visit: 1 }, qualify: 1 }],
      ['a transaction_id that is not a string', { events: { visit: 1 }, transaction_id: 42 }],
    ])('%s → 400 validation, nothing stored', async (_label, body) => {
      const customer = await createCustomer(app, tenant);
      expectError(await send(tenant, `${userPath(customer)}/events`, body), 400, 'validation');
      expectError(await send(tenant, `${externalPath(customer)}/events`, body, 'async=true'), 400, 'validation');
      expect((await timeline(tenant, customer)).total).toBe(0);
      expect(await goalCount(tenant, customer, 'E visits', 'visit')).toBe(0);
    });

    it('an unknown body member → 400 argument_error naming it, nothing stored', async () => {
      const customer = await createCustomer(app, tenant);
      const res = await send(tenant, `${userPath(customer)}/events`, { events: { visit: 1 }, points: 500 });
      expect(expectError(res, 400, 'argument_error')).toEqual(['points']);
      expect((await timeline(tenant, customer)).total).toBe(0);
    });

    it.each([
      ['an unknown user_id', () => `/users/${UNKNOWN_UUID}`],
      ['a malformed user_id', () => '/users/not-a-uuid'],
      ['an unknown external_id', () => '/external/users/nobody-here'],
    ])('%s → 404 not_found on unscoped and scoped routes', async (_label, path) => {
      for (const suffix of ['/events', `/campaigns/${campaign.id}/events`, `/external/campaigns/${campaign.permalink}/events`]) {
        expectError(await send(tenant, `${path()}${suffix}`, { events: { visit: 1 } }), 404, 'not_found');
        expectError(await send(tenant, `${path()}${suffix}`, { events: { visit: 1 } }, 'async=true'), 404, 'not_found');
        expectError(await send(tenant, `${path()}${suffix}`, { events: { visit: 1 } }, 'qualify=true'), 404, 'not_found');
      }
      expectError(await send(tenant, `${path()}/events`, { events: { visit: 1 }, read_only: true }), 404, 'not_found');
    });

    it("another organization's customer → 404 not_found, by user_id and by external_id, and it takes no progress", async () => {
      const foreign = await createCustomer(app, other);
      expectError(await send(tenant, `${userPath(foreign)}/events`, { events: { visit: 1 } }), 404, 'not_found');
      expectError(await send(tenant, `${externalPath(foreign)}/events`, { events: { visit: 1 } }), 404, 'not_found');
      expectError(await send(tenant, `${userPath(foreign)}/campaigns/${campaign.id}/events`, { events: { visit: 1 } }), 404, 'not_found');
      expectError(await send(tenant, `${userPath(foreign)}/events`, { events: { visit: 1 } }, 'async=true'), 404, 'not_found');
      expect((await timeline(other, foreign)).total).toBe(0);
    });

    describe('transaction_id', () => {
      const duplicate = (res: Response, id: string) => {
        expectError(res, 409, 'duplicate_transaction');
        expect(res.body.errors.message).toBe(`transaction_id ${id} has already been processed`);
      };

      it('a repeat under the same api key → 409 duplicate_transaction, and the event counts once', async () => {
        const customer = await createCustomer(app, tenant);
        const id = uniq('dup');
        await sendOk(tenant, customer, { events: { visit: 2 }, transaction_id: id });
        duplicate(await send(tenant, `${userPath(customer)}/events`, { events: { visit: 2 }, transaction_id: id }), id);
        // Another route, another body: still the same key.
        duplicate(await send(tenant, `${externalPath(customer)}/campaigns/${campaign.id}/events`, { events: { other: 1 }, transaction_id: id }), id);
        expect(await goalCount(tenant, customer, 'E visits', 'visit')).toBe(2);
        expect((await timeline(tenant, customer)).total).toBe(1);
      });

      it('a repeat is 409 for another customer of the same api key', async () => {
        const first = await createCustomer(app, tenant);
        const second = await createCustomer(app, tenant);
        const id = uniq('dup-customer');
        await sendOk(tenant, first, { events: { visit: 1 }, transaction_id: id });
        duplicate(await send(tenant, `${userPath(second)}/events`, { events: { visit: 1 }, transaction_id: id }), id);
        expect((await timeline(tenant, second)).total).toBe(0);
      });

      it('read_only with a used transaction_id → 409; read_only does not use one up', async () => {
        const customer = await createCustomer(app, tenant);
        const used = uniq('dup-ro');
        await sendOk(tenant, customer, { events: { visit: 1 }, transaction_id: used });
        duplicate(await send(tenant, `${userPath(customer)}/events`, { events: { visit: 1 }, transaction_id: used, read_only: true }), used);

        const fresh = uniq('ro-first');
        await sendOk(tenant, customer, { events: { visit: 1 }, transaction_id: fresh, read_only: true });
        await sendOk(tenant, customer, { events: { visit: 1 }, transaction_id: fresh });
        expect(await goalCount(tenant, customer, 'E visits', 'visit')).toBe(2);
      });

      it('async=true with a used transaction_id → 409, and a transaction_id used by async=true is taken', async () => {
        const customer = await createCustomer(app, tenant);
        const used = uniq('dup-async');
        await sendOk(tenant, customer, { events: { visit: 1 }, transaction_id: used });
        duplicate(await send(tenant, `${userPath(customer)}/events`, { events: { visit: 1 }, transaction_id: used }, 'async=true'), used);

        const asyncFirst = uniq('async-first');
        const res = await send(tenant, `${userPath(customer)}/events`, { events: { visit: 1 }, transaction_id: asyncFirst }, 'async=true');
        expect(res.status).toBe(200);
        duplicate(await send(tenant, `${userPath(customer)}/events`, { events: { visit: 1 }, transaction_id: asyncFirst }, 'async=true'), asyncFirst);
        duplicate(await send(tenant, `${userPath(customer)}/events`, { events: { visit: 1 }, transaction_id: asyncFirst }), asyncFirst);
        const { events } = await timeline(tenant, customer);
        expect(events.filter((e) => e.transaction_id === asyncFirst)).toHaveLength(1);
        // The sync event counted; the stored async one waits for a worker (none runs on this file's queue).
        expect(await goalCount(tenant, customer, 'E visits', 'visit')).toBe(1);
      });

      it('the same transaction_id under another api key of the organization is processed again (200)', async () => {
        const customer = await createCustomer(app, tenant);
        const pos = await secondApiKey(tenant);
        const id = uniq('two-keys');
        await sendOk(tenant, customer, { events: { visit: 1 }, transaction_id: id });
        const again = await send(pos, `${userPath(customer)}/events`, { events: { visit: 1 }, transaction_id: id });
        expect(again.status).toBe(200);
        expect(again.body.behaviors['E visits'].goals.visit.progress.current_count).toBe(2);
        duplicate(await send(pos, `${userPath(customer)}/events`, { events: { visit: 1 }, transaction_id: id }), id);
        expect(await goalCount(tenant, customer, 'E visits', 'visit')).toBe(2);
      });
    });

    it('accepts every context value type (boolean, string, integer, decimal, datetime) and goal criteria read them', async () => {
      const typed = await createCampaign(app, tenant);
      await createBehavior(app, tenant, typed.id, {
        name: 'E typed context',
        event: 'typed_event',
        event_count: 10,
        criteria: [
          { field: 'context.flag', op: 'eq', value: true },
          { field: 'context.app', op: 'eq', value: 'mobile' },
          { field: 'context.build', op: 'gte', value: 42 },
          { field: 'context.ratio', op: 'gt', value: 1.25 },
          { field: 'context.at', op: 'gte', value: '2026-01-05T00:00:00Z' },
        ],
      });
      const customer = await createCustomer(app, tenant);
      const context = { flag: true, app: 'mobile', build: 42, ratio: 1.5, at: '2026-01-05T10:00:00+02:00' };
      const body = await sendOk(tenant, customer, { events: { typed_event: { context } } });
      expect(body.behaviors['E typed context'].goals.typed_event.progress.current_count).toBe(1);
      // One value of the wrong kind and the goal does not count (the event is still accepted).
      await sendOk(tenant, customer, { events: { typed_event: { context: { ...context, flag: 'true' } } } });
      await sendOk(tenant, customer, { events: { typed_event: { context: { ...context, ratio: 1.25 } } } });
      expect(await goalCount(tenant, customer, 'E typed context', 'typed_event')).toBe(1);
      expect((await timeline(tenant, customer)).total).toBe(3);
    });

    it('attributes accept the same value types', async () => {
      const customer = await createCustomer(app, tenant);
      await sendOk(tenant, customer, { events: { visit: { paid: false, store: 's1', quantity: 2, amount: 9.99, at: '2026-01-05 10:00:00 +0200' } } });
      expect(await goalCount(tenant, customer, 'E visits', 'visit')).toBe(1);
    });
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('multi-org', () => {
    let tenant: TestTenant;
    let other: TestTenant;
    let root: number;
    let north: number;
    let south: number;
    let northCity: number;

    beforeAll(async () => {
      tenant = await createTenant(app, { multi_org_enabled: true });
      other = await createTenant(app, { multi_org_enabled: true });
      root = tenant.rootDivisionId;
      north = await createDivision(tenant, 'North', root);
      south = await createDivision(tenant, 'South', root);
      northCity = await createDivision(tenant, 'North City', north);
      const rootCampaign = await createCampaign(app, tenant, { division_id: root });
      const northCampaign = await createCampaign(app, tenant, { division_id: north });
      const southCampaign = await createCampaign(app, tenant, { division_id: south });
      await createBehavior(app, tenant, rootCampaign.id, { name: 'Root visits', event: 'mo_visit', event_count: 10 });
      await createBehavior(app, tenant, northCampaign.id, { name: 'North visits', event: 'mo_visit', event_count: 10 });
      await createBehavior(app, tenant, southCampaign.id, { name: 'South visits', event: 'mo_visit', event_count: 10 });
    });

    const counts = (body: Json) =>
      Object.fromEntries(Object.entries(body.behaviors as Record<string, Json>).map(([name, b]) => [name, b.goals.mo_visit.progress.current_count]));

    it("an event of a child division is seen by the root's and its own division's campaigns, not by a sibling's", async () => {
      const customer = await createCustomer(app, tenant, { division_id: north });
      const body = await sendOk(tenant, customer, { events: { mo_visit: { context: { division_id: String(north) } } } });
      expect(body.state).toBe('qualified');
      expect(counts(body)).toEqual({ 'Root visits': 1, 'North visits': 1 });
      expect((await timeline(tenant, customer)).events).toEqual([expect.objectContaining({ division_id: north, status: 'processed' })]);
      const read = await retrieval(tenant, customer);
      expect(read.behaviors['South visits'].goals.mo_visit.progress.current_count).toBe(0);
    });

    it('an event of a grandchild division is seen by every ancestor division campaign', async () => {
      const customer = await createCustomer(app, tenant, { division_id: northCity });
      const body = await sendOk(tenant, customer, { events: { mo_visit: { context: { division_id: String(northCity) } } } });
      expect(counts(body)).toEqual({ 'Root visits': 1, 'North visits': 1 });
    });

    it('a division_id given as a number is accepted as well', async () => {
      const customer = await createCustomer(app, tenant, { division_id: south });
      const body = await sendOk(tenant, customer, { events: { mo_visit: { context: { division_id: south } } } });
      expect(counts(body)).toEqual({ 'Root visits': 1, 'South visits': 1 });
    });

    it("an event whose division differs from the customer's → not_targeted_to_campaign: processed, no progress", async () => {
      const customer = await createCustomer(app, tenant, { division_id: north });
      const body = await sendOk(tenant, customer, { events: { mo_visit: { context: { division_id: String(root) } } } });
      expect(body).toEqual(expect.objectContaining({ qualified: false, state: 'not_targeted_to_campaign', deltas: {} }));
      expect(counts(body)).toEqual({ 'Root visits': 0 });
      expect((await timeline(tenant, customer)).events).toEqual([
        expect.objectContaining({ name: 'mo_visit', division_id: root, status: 'processed', reason: 'not_targeted_to_campaign', points_earned: 0 }),
      ]);
      const southEvent = await sendOk(tenant, customer, { events: { mo_visit: { context: { division_id: String(south) } } } });
      expect(southEvent.state).toBe('not_targeted_to_campaign');
      expect(Object.values(counts(southEvent)).every((n) => n === 0)).toBe(true);
      const read = await retrieval(tenant, customer);
      expect(Object.values(counts(read)).every((n) => n === 0)).toBe(true);
    });

    it('a missing division_id defaults to the root division', async () => {
      const rootCustomer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, rootCustomer, { events: { mo_visit: 1 } });
      expect(body.state).toBe('qualified');
      expect(counts(body)).toEqual({ 'Root visits': 1 });
      expect((await timeline(tenant, rootCustomer)).events).toEqual([expect.objectContaining({ division_id: root })]);
      // A customer of a child division sending without division_id: the event is the root's, not the customer's.
      const northCustomer = await createCustomer(app, tenant, { division_id: north });
      const northBody = await sendOk(tenant, northCustomer, { events: { mo_visit: 1 } });
      expect(northBody.state).toBe('not_targeted_to_campaign');
      expect((await timeline(tenant, northCustomer)).events).toEqual([expect.objectContaining({ division_id: root })]);
    });

    it.each([
      ['an id that does not exist', () => '2000000000'],
      ['a non-numeric id', () => 'north'],
      ['a negative id', () => '-3'],
      ["another organization's division", () => String(other.rootDivisionId)],
    ])('context.division_id that is %s → 400 validation, nothing stored', async (_label, division) => {
      const customer = await createCustomer(app, tenant);
      const body = { events: { mo_visit: { context: { division_id: division() } } } };
      expectError(await send(tenant, `${userPath(customer)}/events`, body), 400, 'validation');
      expectError(await send(tenant, `${userPath(customer)}/events`, body, 'async=true'), 400, 'validation');
      expectError(await send(tenant, `${userPath(customer)}/events`, body, 'qualify=true'), 400, 'validation');
      expect((await timeline(tenant, customer)).total).toBe(0);
    });

    describe('retrieval with division_ids', () => {
      let customer: Customer;

      beforeAll(async () => {
        customer = await createCustomer(app, tenant, { division_id: north });
        await sendOk(tenant, customer, { events: { mo_visit: { context: { division_id: String(north) } } } });
      });

      const names = (body: Json) => Object.keys(body.behaviors).sort();

      it('without division_ids answers every live campaign', async () => {
        expect(names(await retrieval(tenant, customer))).toEqual(['North visits', 'Root visits', 'South visits']);
      });

      it.each([
        ['division_ids=<north>', () => `division_ids=${north}`, ['North visits']],
        ['division_ids=<root>,<south>', () => `division_ids=${root},${south}`, ['Root visits', 'South visits']],
        ['division_ids[]=<north>&division_ids[]=<south>', () => `division_ids[]=${north}&division_ids[]=${south}`, ['North visits', 'South visits']],
        ['division_ids=<north City> (no campaign)', () => `division_ids=${northCity}`, []],
      ])('%s restricts to campaigns of those divisions', async (_label, query, expected) => {
        const body = await retrieval(tenant, customer, query());
        expect(names(body)).toEqual(expected);
        if (expected.includes('North visits')) expect(body.behaviors['North visits'].goals.mo_visit.progress.current_count).toBe(1);
        const byExternal = await api(app, tenant).get(`${externalPath(customer)}/events?${query()}`).expect(200);
        expect(byExternal.body).toEqual(body);
      });

      it.each([
        ['a non-numeric id', () => 'division_ids=abc'],
        ['an unknown id among valid ones', () => `division_ids=${north},2000000000`],
        ["another organization's division", () => `division_ids=${other.rootDivisionId}`],
        ['an invalid id in the array form', () => `division_ids[]=${north}&division_ids[]=x`],
      ])('%s → 400 validation', async (_label, query) => {
        expectError(await api(app, tenant).get(`${userPath(customer)}/events?${query()}`), 400, 'validation');
        expectError(await api(app, tenant).get(`${externalPath(customer)}/events?${query()}`), 400, 'validation');
      });
    });

    describe('with multi-org off', () => {
      let plain: TestTenant;

      beforeAll(async () => {
        plain = await createTenant(app, { multi_org_enabled: false });
        const campaign = await createCampaign(app, plain);
        await createBehavior(app, plain, campaign.id, { name: 'Plain org visits', event: 'mo_visit', event_count: 10 });
      });

      it('context.division_id is ignored, even one that is not a division', async () => {
        const customer = await createCustomer(app, plain);
        const body = await sendOk(plain, customer, { events: { mo_visit: { context: { division_id: '2000000000' } } } });
        expect(body.state).toBe('qualified');
        expect(counts(body)).toEqual({ 'Plain org visits': 1 });
        const foreign = await sendOk(plain, customer, { events: { mo_visit: { context: { division_id: String(root) } } } });
        expect(foreign.state).toBe('qualified');
        const { events } = await timeline(plain, customer);
        expect(events.map((e) => e.division_id)).toEqual([null, null]);
      });

      it('division_ids on retrieval is ignored', async () => {
        const customer = await createCustomer(app, plain);
        for (const query of ['division_ids=2000000000', 'division_ids=abc', `division_ids[]=${root}`]) {
          expect(Object.keys((await retrieval(plain, customer, query)).behaviors)).toEqual(['Plain org visits']);
        }
      });
    });
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('retrieval', () => {
    let tenant: TestTenant;
    let other: TestTenant;

    beforeAll(async () => {
      tenant = await createTenant(app);
      other = await createTenant(app);
      const campaign = await createCampaign(app, tenant);
      await createBehaviors(app, tenant, campaign.id, [
        {
          name: 'R limited',
          event: 'r_visit',
          event_count: 3,
          points: 4,
          data: { period: 86_400, max_times_achievable: 5, max_times_achievable_per_period: 2 },
          goal_data: { min_time_between_events: 60 },
        },
        { name: 'R unlimited', event: 'r_checkin', event_count: 2, goal_data: { consecutive: true } },
      ]);
      await createCampaign(app, tenant, { status: 'draft' }).then((draft) => createBehavior(app, tenant, draft.id, { name: 'R draft', event: 'r_visit' }));
    });

    it("answers available_points and each live behavior's limits and progress (absent limits are null)", async () => {
      const customer = await createCustomer(app, tenant);
      await sendOk(tenant, customer, { events: { r_visit: 2 }, date: '2026-01-05T10:00:00Z' });
      const res = await api(app, tenant).get(`${userPath(customer)}/events`).expect(200);
      expect(res.body).toEqual({
        status: 'ok',
        available_points: 0,
        behaviors: {
          'R limited': {
            event_name: 'r_visit',
            type: 'composite',
            max_times_repeatable: 5,
            max_times_repeatable_per_period: 2,
            min_time_between_events: 60,
            consecutive: false,
            achieved: 0,
            current_count: 0,
            total_count: 1,
            goals: { r_visit: expect.objectContaining({ type: 'goal', earn_count: 3, progress: expect.objectContaining({ current_count: 2, total_count: 3 }) }) },
          },
          'R unlimited': {
            event_name: 'r_checkin',
            type: 'composite',
            max_times_repeatable: null,
            max_times_repeatable_per_period: null,
            min_time_between_events: null,
            consecutive: true,
            achieved: 0,
            current_count: 0,
            total_count: 1,
            goals: { r_checkin: expect.objectContaining({ type: 'goal', earn_count: 2, progress: expect.objectContaining({ current_count: 0 }) }) },
          },
        },
      });
      const byExternal = await api(app, tenant).get(`${externalPath(customer)}/events`).expect(200);
      expect(byExternal.body).toEqual(res.body);
    });

    it('shows completions and points after a behavior completes', async () => {
      const customer = await createCustomer(app, tenant);
      await sendOk(tenant, customer, { events: { r_visit: 3 } });
      const body = await retrieval(tenant, customer);
      expect(body.available_points).toBe(4);
      expect(body.behaviors['R limited']).toEqual(expect.objectContaining({ achieved: 1, current_count: 0 }));
    });

    it.each([
      ['an unknown user_id', `/users/${UNKNOWN_UUID}/events`],
      ['a malformed user_id', '/users/12345/events'],
      ['an unknown external_id', '/external/users/nobody-here/events'],
    ])('%s → 404 not_found', async (_label, path) => {
      expectError(await api(app, tenant).get(path), 404, 'not_found');
    });

    it("another organization's customer → 404 not_found", async () => {
      const foreign = await createCustomer(app, other);
      expectError(await api(app, tenant).get(`${userPath(foreign)}/events`), 404, 'not_found');
      expectError(await api(app, tenant).get(`${externalPath(foreign)}/events`), 404, 'not_found');
    });
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('outcomes', () => {
    let tenant: TestTenant;
    let offerId: number;

    beforeAll(async () => {
      tenant = await createTenant(app);
      for (const tier of [
        { name: 'Silver', min_points: 100 },
        { name: 'Gold', min_points: 500 },
        { name: 'Platinum', min_points: 1000 },
      ]) {
        await api(app, tenant).post('/management/tiers').send({ tier }).expect(201);
      }
      const offer = await api(app, tenant).post('/management/offers').send({ offer: { name: 'Free coffee', points: 20 } }).expect(201);
      offerId = offer.body.offer.id;
      const campaign = await createCampaign(app, tenant);
      await createBehaviors(app, tenant, campaign.id, [
        {
          name: 'O rewarded',
          event: 'o_visit',
          event_count: 2,
          points: 50,
          goal_points: 5,
          tags: 'explorer|visitor',
          outcomes: [{ deal: { id: offerId } }, { points: 10 }, { tier: { name: 'Gold' } }],
        },
        { name: 'O big', event: 'o_big', points: 150, data: { max_times_achievable: 1 } },
        { name: 'O chain start', event: 'o_chain', points: 1, outcomes: [{ event: { name: 'o_chained', by: 1 } }] },
        { name: 'O chain end', event: 'o_chained', points: 2 },
      ]);
    });

    it('a completion credits behavior, goal, offer and points outcomes, adds tags, lifts the tier and issues the offer', async () => {
      const customer = await createCustomer(app, tenant, { tags: ['visitor'] });
      const first = await sendOk(tenant, customer, { events: { o_visit: 1 } });
      expect(first).toEqual(expect.objectContaining({ available_points: 0, user: { available_points: 0, tier: null } }));

      const body = await sendOk(tenant, customer, { events: { o_visit: 1 } });
      // 50 (behavior) + 5 (goal) + 20 (offer) + 10 (points outcome)
      expect(body).toEqual(
        expect.objectContaining({
          available_points: 85,
          user: { available_points: 85, tier: 'Gold' },
          deltas: { 'O rewarded': { current_count: 0, achieved: 1, reset: true } },
          state: 'qualified',
        }),
      );
      expect(body.behaviors['O rewarded'].achieved).toBe(1);

      const user = await getUser(tenant, customer);
      expect(user).toEqual(expect.objectContaining({ available_points: 85, lifetime_points: 85, tier: 'Gold' }));
      expect([...user.tags].sort()).toEqual(['explorer', 'visitor']);
      expect((await retrieval(tenant, customer)).available_points).toBe(85);

      const { events } = await timeline(tenant, customer);
      expect(events.map((e) => [e.name, e.status, e.points_earned])).toEqual([
        ['o_visit', 'processed', 85],
        ['o_visit', 'processed', 0],
      ]);
      // No route lists a customer's offers: the issued offer is checked in the database.
      const offers: Array<{ offer_id: number }> = await db.query(`SELECT offer_id FROM customer_offers WHERE customer_id = $1`, [customer.id]);
      expect(offers.map((o) => o.offer_id)).toEqual([offerId]);
    });

    it('the tier follows lifetime points, never lowered', async () => {
      const customer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, customer, { events: { o_big: 1 } });
      expect(body.user).toEqual({ available_points: 150, tier: 'Silver' });
      expect(await getUser(tenant, customer)).toEqual(expect.objectContaining({ available_points: 150, lifetime_points: 150, tier: 'Silver' }));
      // The Gold tier outcome lifts above what points earn; later points do not lower it.
      await sendOk(tenant, customer, { events: { o_visit: 2 } });
      const after = await getUser(tenant, customer);
      expect(after).toEqual(expect.objectContaining({ available_points: 235, lifetime_points: 235, tier: 'Gold' }));
    });

    it('an event outcome is evaluated in the same request', async () => {
      const customer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, customer, { events: { o_chain: 1 } });
      expect(body.user.available_points).toBe(3);
      const read = await retrieval(tenant, customer);
      expect(read.behaviors['O chain start'].achieved).toBe(1);
      expect(read.behaviors['O chain end'].achieved).toBe(1);
      const { events } = await timeline(tenant, customer);
      expect(events).toEqual([expect.objectContaining({ name: 'o_chain', status: 'processed', points_earned: 3 })]);
    });
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('notifications, raised events across campaigns and configuration changes', () => {
    it("a triggered creative's notification is answered field by field", async () => {
      const tenant = await createTenant(app);
      const campaign = await createCampaign(app, tenant);
      const behavior = await createBehavior(app, tenant, campaign.id, { name: 'N welcome', event: 'n_signup', points: 1 });
      await createTriggeredCreative(app, tenant, campaign.id, behavior.id, { message: 'Welcome aboard', url: 'https://example.com/welcome', payload: { screen: 'rewards' } });

      const customer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, customer, { events: { n_signup: 1 } });
      expect(body.notifications).toEqual([
        {
          id: expect.any(Number),
          type: 'push_message',
          campaign_id: campaign.id,
          behavior_name: 'N welcome',
          data: { action_type: 'message', url: 'https://example.com/welcome', message: 'Welcome aboard', payload: { screen: 'rewards' } },
        },
      ]);
      const again = await sendOk(tenant, customer, { events: { n_signup: 1 } });
      expect(again.notifications).toHaveLength(1);
      expect(again.notifications[0].id).not.toBe(body.notifications[0].id);
      // No notification when nothing completes.
      expect((await sendOk(tenant, customer, { events: { n_other: 1 } })).notifications).toEqual([]);
    });

    it('read_only answers the notification a completion would produce, without an id: nothing is stored', async () => {
      const tenant = await createTenant(app);
      const campaign = await createCampaign(app, tenant);
      const behavior = await createBehavior(app, tenant, campaign.id, { name: 'N preview', event: 'n_preview', points: 1 });
      await createTriggeredCreative(app, tenant, campaign.id, behavior.id, { message: 'Welcome aboard' });

      const customer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, customer, { events: { n_preview: 1 }, read_only: true });
      expect(body.notifications).toEqual([expect.objectContaining({ id: null, campaign_id: campaign.id, behavior_name: 'N preview' })]);
      expect(body.deltas).toEqual({ 'N preview': { current_count: 0, achieved: 1, reset: true } });
      const stored = await api(app, tenant).get(`/users/${customer.id}/notifications`).expect(200);
      expect(stored.body.notifications).toEqual([]);
    });

    it("an event raised by an outcome progresses another campaign's behavior, answered in behaviors and deltas", async () => {
      const tenant = await createTenant(app);
      const start = await createCampaign(app, tenant);
      const follow = await createCampaign(app, tenant);
      await createBehavior(app, tenant, start.id, { name: 'X start', event: 'x_go', outcomes: [{ event: { name: 'y_go', by: 1 } }] });
      await createBehaviors(app, tenant, follow.id, [
        { name: 'Y once', event: 'y_go', points: 4 },
        { name: 'Y twice', event: 'y_go', event_count: 2 },
      ]);
      const customer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, customer, { events: { x_go: 1 } });
      expect(body.user.available_points).toBe(4);
      expect(body.behaviors['X start'].achieved).toBe(1);
      expect(body.behaviors['Y once']).toEqual(expect.objectContaining({ achieved: 1, deltas: expect.objectContaining({ achieved: 1 }) }));
      expect(body.behaviors['Y twice']).toEqual(expect.objectContaining({ achieved: 0 }));
      expect(body.behaviors['Y twice'].goals.y_go.progress.current_count).toBe(1);
      expect(body.deltas).toEqual({
        'X start': { current_count: 0, achieved: 1, reset: true },
        'Y once': { current_count: 0, achieved: 1, reset: true },
        'Y twice': { current_count: 0, achieved: 0 },
      });
    });

    it("an event raised by an outcome that only progresses another campaign's behavior is answered too", async () => {
      const tenant = await createTenant(app);
      const start = await createCampaign(app, tenant);
      const follow = await createCampaign(app, tenant);
      await createBehavior(app, tenant, start.id, { name: 'X2 start', event: 'x2_go', outcomes: [{ event: { name: 'y2_go', by: 1 } }] });
      await createBehavior(app, tenant, follow.id, { name: 'Y2 twice', event: 'y2_go', event_count: 2 });
      const customer = await createCustomer(app, tenant);
      const body = await sendOk(tenant, customer, { events: { x2_go: 1 } });
      expect(await goalCount(tenant, customer, 'Y2 twice', 'y2_go')).toBe(1);
      expect(Object.keys(body.behaviors).sort()).toEqual(['X2 start', 'Y2 twice']);
      expect(body.behaviors['Y2 twice'].goals.y2_go.progress.current_count).toBe(1);
      expect(body.deltas).toEqual({ 'X2 start': { current_count: 0, achieved: 1, reset: true }, 'Y2 twice': { current_count: 0, achieved: 0 } });
    });

    it('pausing a campaign or deleting a behavior takes effect on the next event', async () => {
      const tenant = await createTenant(app);
      const campaign = await createCampaign(app, tenant, { permalink: uniq('changing') });
      const kept = await createCampaign(app, tenant);
      const doomed = await createBehavior(app, tenant, kept.id, { name: 'C doomed', event: 'c_visit', event_count: 10 });
      await createBehavior(app, tenant, kept.id, { name: 'C kept', event: 'c_visit', event_count: 10 });
      await createBehavior(app, tenant, campaign.id, { name: 'C paused', event: 'c_visit', event_count: 10 });
      const customer = await createCustomer(app, tenant);
      expect(Object.keys((await sendOk(tenant, customer, { events: { c_visit: 1 } })).behaviors).sort()).toEqual(['C doomed', 'C kept', 'C paused']);

      await api(app, tenant)
        .put(`/management/campaigns/${campaign.id}`)
        .send({ campaign: { name: campaign.name, status: 'paused', starts_at: campaign.starts_at, ends_at: campaign.ends_at } })
        .expect(200);
      await api(app, tenant).delete(`/management/behaviors/${doomed.id}`).expect(200);

      const body = await sendOk(tenant, customer, { events: { c_visit: 1 } });
      expect(Object.keys(body.behaviors)).toEqual(['C kept']);
      expect(body.behaviors['C kept'].goals.c_visit.progress.current_count).toBe(2);
      expectError(await send(tenant, `${userPath(customer)}/campaigns/${campaign.id}/events`, { events: { c_visit: 1 } }), 404, 'No_active_campaign_found');
      expectError(await send(tenant, `${userPath(customer)}/external/campaigns/${campaign.permalink}/events`, { events: { c_visit: 1 } }), 404, 'No_active_campaign_found');
      expect(Object.keys((await retrieval(tenant, customer)).behaviors)).toEqual(['C kept']);
    });
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('concurrent requests for one customer', () => {
    let tenant: TestTenant;

    beforeAll(async () => {
      tenant = await createTenant(app);
      const campaign = await createCampaign(app, tenant);
      await createBehavior(app, tenant, campaign.id, { name: 'P visits', event: 'p_visit', event_count: 5, points: 10 });
    });

    it('lose no update', async () => {
      const customer = await createCustomer(app, tenant);
      const answers = await Promise.all(Array.from({ length: 12 }, () => send(tenant, `${userPath(customer)}/events`, { events: { p_visit: 1 } })));
      expect(answers.map((r) => r.status)).toEqual(Array(12).fill(200));
      const read = await retrieval(tenant, customer);
      expect(read.behaviors['P visits'].achieved).toBe(2);
      expect(read.behaviors['P visits'].goals.p_visit.progress.current_count).toBe(2);
      expect(read.available_points).toBe(20);
      expect((await getUser(tenant, customer)).lifetime_points).toBe(20);
      expect((await timeline(tenant, customer)).total).toBe(12);
    });

    it('accept a transaction_id once when sent in parallel', async () => {
      const customer = await createCustomer(app, tenant);
      const id = uniq('parallel');
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => send(tenant, `${userPath(customer)}/events`, { events: { p_visit: 1 }, transaction_id: id })),
      );
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
      for (const res of answers.filter((r) => r.status === 409)) {
        expect(res.body.errors).toEqual(expect.objectContaining({ code: 'duplicate_transaction', message: `transaction_id ${id} has already been processed` }));
      }
      expect(await goalCount(tenant, customer, 'P visits', 'p_visit')).toBe(1);
    });
  });

  // ---------------------------------------------------------------------------------------------------------------
  describe('timeline', () => {
    it('lists the processed events newest first with status and points_earned', async () => {
      const tenant = await createTenant(app);
      const campaign = await createCampaign(app, tenant);
      await createBehavior(app, tenant, campaign.id, { name: 'T visits', event: 't_visit', event_count: 2, points: 30 });
      const customer = await createCustomer(app, tenant);
      await sendOk(tenant, customer, { events: { t_visit: 1 }, date: '2026-01-05T10:00:00Z' });
      await sendOk(tenant, customer, { events: { t_visit: 1 }, date: '2026-01-06T10:00:00Z' });
      await sendOk(tenant, customer, { events: { t_other: 1 }, date: '2026-01-07T10:00:00Z' });
      const { total, events } = await timeline(tenant, customer);
      expect(total).toBe(3);
      expect(events.map((e) => [e.name, e.occurred_at, e.points_earned])).toEqual([
        ['t_other', '2026-01-07T10:00:00.000Z', 0],
        ['t_visit', '2026-01-06T10:00:00.000Z', 30],
        ['t_visit', '2026-01-05T10:00:00.000Z', 0],
      ]);
      expect(events.slice(1).every((e) => e.status === 'processed')).toBe(true);
      const byExternal = await api(app, tenant).get(`${externalPath(customer)}/timeline?limit=100`).expect(200);
      expect(byExternal.body.events).toEqual(events);
    });
  });
});
