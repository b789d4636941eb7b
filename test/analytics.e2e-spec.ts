import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import request from 'supertest';
import { createTestApp } from './support/app.js';
import { expectErrorSorted as expectError } from './support/errors.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor } from './support/worker.js';
import { api, createTenant, type TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createBehavior, createBehaviors } from './factories/behavior.factory.js';
import { createCustomer } from './factories/customer.factory.js';

type Customer = Awaited<ReturnType<typeof createCustomer>>;
const ZERO = { events: 0, participants: 0, achievements: 0, points_credited: 0, points_reversed: 0, offers_issued: 0, notifications: 0 };

describe('campaign analytics (contract §19)', () => {
  const prefix = ownQueuePrefix('analytics');
  let app: INestApplication;
  let worker: INestApplicationContext;

  beforeAll(async () => {
    app = await createTestApp({ queuePrefix: prefix });
    worker = await startTestWorker({ queuePrefix: prefix, workerQueues: ['events'] });
  });
  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  const analytics = (tenant: TestTenant, campaignId: number, query = '') => api(app, tenant).get(`/management/campaigns/${campaignId}/analytics${query}`);
  const read = async (tenant: TestTenant, campaignId: number, query: string) => (await analytics(tenant, campaignId, query).expect(200)).body.analytics;
  const v1 = (tenant: TestTenant, customer: Customer, body: Record<string, unknown>, query = '') => api(app, tenant).post(`/users/${customer.id}/events${query}`).send(body);
  const v2 = (tenant: TestTenant, events: unknown[]) => request(app.getHttpServer()).post(`/priv/v2/apps/${tenant.apiKey}/events`).auth(tenant.apiKey, tenant.apiSecret).send({ events });

  /** A campaign with "Buyer" (2 purchases: 10 points, 5 more for the goal) and "Reviewer" (a review: 3 points). */
  async function shop(timeZone = 'UTC') {
    const tenant = await createTenant(app, { time_zone: timeZone });
    const campaign = await createCampaign(app, tenant);
    const [buyer, reviewer] = await createBehaviors(app, tenant, campaign.id, [
      { name: `Buyer ${campaign.id}`, event: 'purchase', event_count: 2, points: 10, goal_points: 5 },
      { name: `Reviewer ${campaign.id}`, event: 'review', points: 3 },
    ]);
    return { tenant, campaign, buyer, reviewer };
  }

  it('counts V1 events by day of the range: totals, every day with zeros, behaviors and the goal funnel', async () => {
    const { tenant, campaign, buyer, reviewer } = await shop();
    const [ann, bob] = [await createCustomer(app, tenant), await createCustomer(app, tenant)];
    await v1(tenant, ann, { events: { purchase: 1 }, date: '2026-10-05T09:00:00Z' }).expect(200);
    await v1(tenant, ann, { events: { purchase: 1, review: 1 }, date: '2026-10-05T18:00:00Z' }).expect(200);
    await v1(tenant, bob, { events: { purchase: 1 }, date: '2026-10-07T10:00:00Z' }).expect(200);
    // Not listened to: evaluated by no campaign, counted nowhere.
    await v1(tenant, bob, { events: { wave: 1 }, date: '2026-10-07T11:00:00Z' }).expect(200);

    const a = await read(tenant, campaign.id, '?from=2026-10-04&to=2026-10-08');
    expect(a).toEqual({
      campaign_id: campaign.id,
      from: '2026-10-04',
      to: '2026-10-08',
      granularity: 'day',
      time_zone: 'UTC',
      totals: { events: 4, participants: 2, achievements: 2, points_credited: 18, points_reversed: 0, offers_issued: 0, notifications: 0, customers_achieved: 1 },
      series: [
        { period: '2026-10-04', ...ZERO },
        { period: '2026-10-05', ...ZERO, events: 3, participants: 1, achievements: 2, points_credited: 18 },
        { period: '2026-10-06', ...ZERO },
        { period: '2026-10-07', ...ZERO, events: 1, participants: 1 },
        { period: '2026-10-08', ...ZERO },
      ],
      behaviors: {
        [buyer.name]: { achievements: 1, customers_achieved: 1, points: 15 },
        [reviewer.name]: { achievements: 1, customers_achieved: 1, points: 3 },
      },
      goals: [
        { goal_id: buyer.goal_groups[0].goals[0].achievement.id, behavior_name: buyer.name, name: 'purchase', customers_started: 2, customers_completed: 1 },
        { goal_id: reviewer.goal_groups[0].goals[0].achievement.id, behavior_name: reviewer.name, name: 'review', customers_started: 1, customers_completed: 1 },
      ],
    });
    // A range that leaves the 5th out counts what falls in it only; the funnel is at any time.
    const later = await read(tenant, campaign.id, '?from=2026-10-06&to=2026-10-07');
    expect(later.totals).toEqual({ ...ZERO, events: 1, participants: 1, customers_achieved: 0 });
    expect(later.goals.map((g: { customers_started: number }) => g.customers_started)).toEqual([2, 1]);
  });

  it("places events on the organization's days (Lord Howe, +10:30 in June), whatever the customer's zone", async () => {
    const { tenant, campaign } = await shop('Australia/Lord_Howe');
    const customer = await createCustomer(app, tenant, { time_zone: 'America/New_York' });
    await v1(tenant, customer, { events: { review: 1 }, date: '2026-06-10T13:29:00Z' }).expect(200);
    await v1(tenant, customer, { events: { review: 1 }, date: '2026-06-10T13:31:00Z' }).expect(200);
    const a = await read(tenant, campaign.id, '?from=2026-06-10&to=2026-06-11');
    expect(a.time_zone).toBe('Australia/Lord_Howe');
    expect(a.series.map((s: { period: string; events: number; participants: number }) => [s.period, s.events, s.participants])).toEqual([
      ['2026-06-10', 1, 1],
      ['2026-06-11', 1, 1],
    ]);
    expect(a.totals.participants).toBe(1);
  });

  it('counts V1 async, V2 and perform alike, each instance once, within a minute of processing', async () => {
    const { tenant, campaign, buyer } = await shop();
    const customer = await createCustomer(app, tenant);
    await v1(tenant, customer, { events: { purchase: 1 }, date: '2026-09-01T10:00:00Z' }, '?async=true').expect(200);
    await v2(tenant, [
      { name: 'purchase', user_id: customer.id, occurred_at: '2026-09-01T11:00:00Z' },
      { name: 'review', user_id: customer.id, occurred_at: '2026-09-02T11:00:00Z' },
    ]).expect(200);
    await waitFor(async () => (await read(tenant, campaign.id, '?from=2026-09-01&to=2026-09-30')).totals.events === 3, 60_000, 'the worker to process the events');
    const day = new Date().toISOString().slice(0, 10);
    await request(app.getHttpServer()).post(`/priv/v2/apps/${tenant.apiKey}/users/${customer.id}/campaigns/${campaign.id}/perform`).auth(tenant.apiKey, tenant.apiSecret).send({ domain: 'complete_campaign' }).expect(200);

    const september = await read(tenant, campaign.id, '?from=2026-09-01&to=2026-09-30&granularity=month');
    expect(september.series).toEqual([{ period: '2026-09-01', ...ZERO, events: 3, participants: 1, achievements: 2, points_credited: 18 }]);
    // The perform's event is dated when it ran: today, or tomorrow if midnight passed in between.
    const today = await read(tenant, campaign.id, `?from=${day}&to=${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)}`);
    // perform completes both behaviors once more (Buyer's 10 + 5, Reviewer's 3): its event is today's.
    expect(today.totals).toMatchObject({ events: 1, participants: 1, achievements: 2, points_credited: 18 });
    expect(today.behaviors[buyer.name]).toEqual({ achievements: 1, customers_achieved: 1, points: 15 });
  });

  it('nets reversals from achievements at the reversed event’s day and counts their points in points_reversed', async () => {
    const { tenant, campaign, buyer } = await shop();
    const customer = await createCustomer(app, tenant);
    await v1(tenant, customer, { events: { purchase: 2 }, date: '2026-08-03T10:00:00Z', transaction_id: 'order-1' }).expect(200);
    await v1(tenant, customer, { events: { purchase: 2 }, date: '2026-08-04T10:00:00Z', transaction_id: 'order-2' }).expect(200);
    await api(app, tenant).post(`/users/${customer.id}/events/reversals`).send({ reversal: { transaction_id: 'order-1' } }).expect(200);

    const a = await read(tenant, campaign.id, '?from=2026-08-03&to=2026-08-04');
    expect(a.totals).toEqual({ ...ZERO, events: 2, participants: 1, achievements: 1, points_credited: 30, points_reversed: 15, customers_achieved: 1 });
    expect(a.series.map((s: { achievements: number; points_reversed: number }) => [s.achievements, s.points_reversed])).toEqual([
      [0, 15],
      [1, 0],
    ]);
    expect(a.behaviors[buyer.name]).toEqual({ achievements: 1, customers_achieved: 1, points: 15 });
    // On the reversed day alone, nobody achieved anything that stands.
    expect((await read(tenant, campaign.id, '?from=2026-08-03&to=2026-08-03')).totals.customers_achieved).toBe(0);
  });

  it('by week (from Monday) and by month: participants distinct in each period and over the range', async () => {
    const { tenant, campaign } = await shop();
    const [ann, bob] = [await createCustomer(app, tenant), await createCustomer(app, tenant)];
    // 2026-11-29 is a Sunday, 2026-11-30 a Monday.
    for (const date of ['2026-11-28T10:00:00Z', '2026-11-29T10:00:00Z', '2026-11-30T10:00:00Z']) await v1(tenant, ann, { events: { review: 1 }, date }).expect(200);
    await v1(tenant, bob, { events: { review: 1 }, date: '2026-12-01T10:00:00Z' }).expect(200);
    await v1(tenant, ann, { events: { review: 1 }, date: '2026-12-02T10:00:00Z' }).expect(200);

    const weeks = await read(tenant, campaign.id, '?from=2026-11-25&to=2026-12-08&granularity=week');
    expect(weeks.series.map((s: { period: string; events: number; participants: number }) => [s.period, s.events, s.participants])).toEqual([
      ['2026-11-23', 2, 1],
      ['2026-11-30', 3, 2],
      ['2026-12-07', 0, 0],
    ]);
    expect(weeks.totals.participants).toBe(2);
    const months = await read(tenant, campaign.id, '?from=2026-11-01&to=2026-12-31&granularity=month');
    expect(months.series.map((s: { period: string; participants: number }) => [s.period, s.participants])).toEqual([
      ['2026-11-01', 1],
      ['2026-12-01', 2],
    ]);
    const days = await read(tenant, campaign.id, '?from=2026-11-28&to=2026-12-02');
    expect(days.series.map((s: { participants: number }) => s.participants)).toEqual([1, 1, 1, 1, 1]);
    expect(days.totals.participants).toBe(2);
  });

  it('answers the 30 days ending today by default, a campaign with nothing in zeros', async () => {
    const { tenant, campaign } = await shop();
    const before = new Date().toISOString().slice(0, 10);
    const a = await read(tenant, campaign.id, '');
    // Today in UTC, the organization's zone (either side of a midnight passing during the request).
    expect([before, new Date().toISOString().slice(0, 10)]).toContain(a.to);
    expect(a.series).toHaveLength(30);
    expect(a.series[0].period).toBe(a.from);
    expect(a.totals).toEqual({ ...ZERO, customers_achieved: 0 });
  });

  it('refuses bad ranges naming the parameter, and another organization’s campaign as not_found', async () => {
    const { tenant, campaign } = await shop();
    const cases: Array<[string, string]> = [
      ['?from=2026-02-30', 'from'],
      ['?from=yesterday', 'from'],
      ['?to=2026-1-5', 'to'],
      ['?from=2026-10-05&to=2026-10-04', 'to'],
      ['?from=2024-01-01&to=2027-01-01', 'to'],
      ['?granularity=year', 'granularity'],
      ['?granularity=', 'granularity'],
    ];
    for (const [query, field] of cases) expect({ query, fields: expectError(await analytics(tenant, campaign.id, query), 400, 'validation') }).toEqual({ query, fields: [field] });
    // Exactly three years less a day is allowed.
    expect((await read(tenant, campaign.id, '?from=2024-01-01&to=2026-12-31&granularity=month')).series).toHaveLength(36);

    const other = await createTenant(app);
    expectError(await analytics(other, campaign.id), 404, 'not_found');
    expectError(await analytics(tenant, 999_999_999), 404, 'not_found');
  });

  it('adds events that listened but did not progress any goal, and leaves out campaigns that do not target the customer', async () => {
    const tenant = await createTenant(app);
    const open = await createCampaign(app, tenant);
    const vip = await createCampaign(app, tenant, { targeting: [{ field: 'user.tags', op: 'contains', value: 'vip' }] });
    await createBehavior(app, tenant, open.id, { name: `Big spender ${open.id}`, event: 'purchase', criteria: [{ field: 'amount', op: 'gte', value: 100 }] });
    await createBehavior(app, tenant, vip.id, { name: `VIP ${vip.id}`, event: 'purchase' });
    const customer = await createCustomer(app, tenant);
    await v1(tenant, customer, { events: { purchase: [{ amount: 5 }] }, date: '2026-07-01T10:00:00Z' }).expect(200);
    expect((await read(tenant, open.id, '?from=2026-07-01&to=2026-07-01')).totals).toMatchObject({ events: 1, participants: 1, achievements: 0 });
    expect((await read(tenant, vip.id, '?from=2026-07-01&to=2026-07-01')).totals).toMatchObject({ events: 0, participants: 0 });
  });
});
