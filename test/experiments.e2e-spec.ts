import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import request from 'supertest';
import gammainc from '@stdlib/math-base-special-gammainc';
import { createTestApp } from './support/app.js';
import { expectErrorAmongOthers, expectErrorSorted as expectError } from './support/errors.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor } from './support/worker.js';
import { api, createTenant, type TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createBehaviors } from './factories/behavior.factory.js';
import { createCustomer } from './factories/customer.factory.js';

type Customer = Awaited<ReturnType<typeof createCustomer>>;
const EXPERIMENT = {
  holdout_percent: 40,
  variants: [
    { name: 'A', weight: 1 },
    { name: 'B', weight: 1 },
  ],
  metric: { event: 'purchase', attribute: 'amount' },
};

/** Relative closeness (the contract's 1e-9), for numbers computed here from the raw values. */
function close(actual: number | null, expected: number | null): void {
  if (expected === null) return expect(actual).toBeNull();
  expect(actual).not.toBeNull();
  expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)));
}

/** The two-sided normal p-value of z, from stdlib's regularized incomplete gamma (P(|Z| > z) = Q(1/2, z²/2)). */
const twoSided = (z: number) => gammainc(z * z / 2, 0.5, true, true);

describe('experiments (contract §20)', () => {
  const prefix = ownQueuePrefix('experiments');
  let app: INestApplication;
  let worker: INestApplicationContext;

  beforeAll(async () => {
    app = await createTestApp({ queuePrefix: prefix });
    worker = await startTestWorker({ queuePrefix: prefix, workerQueues: ['events', 'simulations'] });
  });
  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  const v1 = (tenant: TestTenant, customer: Customer, body: Record<string, unknown>, query = '') => api(app, tenant).post(`/users/${customer.id}/events${query}`).send(body);
  const results = async (tenant: TestTenant, campaignId: number) => (await api(app, tenant).get(`/management/campaigns/${campaignId}/experiment`).expect(200)).body.experiment;
  const groupOf = async (tenant: TestTenant, customer: Customer, campaignId: number) =>
    ((await api(app, tenant).get(`/users/${customer.id}`).expect(200)).body.user.experiments as Array<{ campaign_id: number; group: string }>).find((e) => e.campaign_id === campaignId)?.group;

  /** A shop whose campaign runs EXPERIMENT: "Visitor" for every customer (5 points), "Buyer A" (50) and "Buyer B" (70). */
  async function shop(experiment: Record<string, unknown> = EXPERIMENT) {
    const tenant = await createTenant(app);
    const campaign = await createCampaign(app, tenant, { experiment });
    const behaviors = await createBehaviors(app, tenant, campaign.id, [
      { name: `Visitor ${campaign.id}`, event: 'visit', points: 5 },
      { name: `Buyer A ${campaign.id}`, event: 'purchase', points: 50, variant: 'A' },
      { name: `Buyer B ${campaign.id}`, event: 'purchase', points: 70, variant: 'B' },
    ]);
    return { tenant, campaign, behaviors };
  }

  /** Customers who each sent one visit, by the group the customer route says they were assigned to, until each group has two. */
  async function customersByGroup(tenant: TestTenant, campaignId: number, groups = ['holdout', 'A', 'B']) {
    const by: Record<string, Customer[]> = Object.fromEntries(groups.map((g) => [g, []]));
    for (let i = 0; i < 80 && groups.some((g) => by[g].length < 2); i += 1) {
      const customer = await createCustomer(app, tenant);
      await v1(tenant, customer, { events: { visit: 1 } }).expect(200);
      (by[(await groupOf(tenant, customer, campaignId))!] ??= []).push(customer);
    }
    return by;
  }

  describe('settings', () => {
    it('answers the experiment with its defaults, not started, on create and read', async () => {
      const tenant = await createTenant(app);
      const campaign = await createCampaign(app, tenant, { experiment: { holdout_percent: 10, metric: { event: 'purchase' } } });
      const expected = { holdout_percent: 10, variants: [{ name: 'treatment', weight: 1 }], metric: { event: 'purchase', attribute: null }, started_at: null, ended_at: null, winner: null };
      expect((campaign as unknown as { experiment: unknown }).experiment).toEqual(expected);
      expect((await api(app, tenant).get(`/management/campaigns/${campaign.id}`).expect(200)).body.campaign.experiment).toEqual(expected);
      const plain = await createCampaign(app, tenant);
      expect((await api(app, tenant).get(`/management/campaigns/${plain.id}`).expect(200)).body.campaign.experiment).toBeNull();
    });

    it.each([
      [{ ...EXPERIMENT, holdout_percent: 91 }, 'validation', ['campaign.experiment.holdout_percent']],
      [{ ...EXPERIMENT, holdout_percent: 2.5 }, 'validation', ['campaign.experiment.holdout_percent']],
      [{ ...EXPERIMENT, variants: [] }, 'validation', ['campaign.experiment.variants']],
      [{ ...EXPERIMENT, variants: ['A', 'B', 'C', 'D', 'E', 'F'].map((name) => ({ name })) }, 'validation', ['campaign.experiment.variants']],
      [{ ...EXPERIMENT, variants: [{ name: 'holdout' }] }, 'validation', ['campaign.experiment.variants.0.name']],
      [{ ...EXPERIMENT, variants: [{ name: 'x'.repeat(41) }] }, 'validation', ['campaign.experiment.variants.0.name']],
      [{ ...EXPERIMENT, variants: [{ name: 'A', weight: 0 }] }, 'validation', ['campaign.experiment.variants.0.weight']],
      [{ ...EXPERIMENT, variants: [{ name: 'A' }, { name: 'A' }] }, 'validation', ['campaign.experiment.variants']],
      [{ ...EXPERIMENT, metric: { event: 'purchase', attribute: 5 } }, 'validation', ['campaign.experiment.metric.attribute']],
      [{ holdout_percent: 10 }, 'missing_data', ['campaign.experiment.metric']],
    ])('refuses %j with %s naming %j, and stores nothing', async (experiment, code, fields) => {
      const tenant = await createTenant(app);
      const res = await api(app, tenant)
        .post('/management/campaigns')
        .send({ campaign: { name: 'Refused', starts_at: '2026-01-01T00:00:00Z', ends_at: '2027-01-01T00:00:00Z', experiment } });
      expect(expectError(res, 400, code)).toEqual(fields);
      expect((await api(app, tenant).get('/management/campaigns').expect(200)).body.total).toBe(0);
    });

    it("refuses a behavior's variant the experiment does not have, or on a campaign without one", async () => {
      const { tenant, campaign, behaviors } = await shop();
      const body = { name: 'Buyer C', points: 1, data: {}, goal_groups: [{ goals: [{ achievement: { name: 'purchase', event_count: 1 } }] }], variant: 'C' };
      const batch = await api(app, tenant).post(`/management/campaigns/${campaign.id}/behaviors/_batch`).send({ behaviors: [body] });
      expect(expectErrorAmongOthers(batch, 400, 'validation')).toEqual(['behaviors.0.variant']);
      const put = await api(app, tenant).put(`/management/behaviors/${behaviors[0].id}`).send({ behavior: { variant: 'C' } });
      expect(expectErrorAmongOthers(put, 400, 'validation')).toEqual(['behavior.variant']);
      const plain = await createCampaign(app, tenant);
      const none = await api(app, tenant).post(`/management/campaigns/${plain.id}/behaviors/_batch`).send({ behaviors: [{ ...body, name: 'Buyer D', variant: 'A' }] });
      expect(expectErrorAmongOthers(none, 400, 'validation')).toEqual(['behaviors.0.variant']);
      expect((await api(app, tenant).get(`/management/behaviors/${behaviors[1].id}`).expect(200)).body.behavior.variant).toBe('A');
    });
  });

  describe('assignment and evaluation', () => {
    it('assigns each customer once at their first event; the holdout sees nothing, each variant its own behaviors', async () => {
      const { tenant, campaign, behaviors } = await shop();
      const [visitor, buyerA, buyerB] = behaviors.map((b) => b.name);
      const by = await customersByGroup(tenant, campaign.id);
      const [held, a, b] = [by.holdout[0], by.A[0], by.B[0]];

      // The customer route: one assignment each, at the time of the first event, kept by later events.
      const before = (await api(app, tenant).get(`/users/${a.id}`).expect(200)).body.user.experiments;
      expect(before).toEqual([{ campaign_id: campaign.id, group: 'A', assigned_at: expect.any(String) }]);
      await v1(tenant, a, { events: { visit: 1 } }).expect(200);
      expect((await api(app, tenant).get(`/external/users/${a.external_id}`).expect(200)).body.user.experiments).toEqual(before);

      // The holdout: nothing from the campaign, absent from the answer, the explanation says why.
      const heldAnswer = (await v1(tenant, held, { events: { purchase: { amount: 30 } } }, '?explain=true').expect(200)).body;
      expect(heldAnswer).toMatchObject({ available_points: 0, behaviors: {}, deltas: {}, qualified: false, state: 'not_targeted_to_campaign' });
      expect(heldAnswer.explanation[0].campaigns).toEqual([
        expect.objectContaining({ campaign_id: campaign.id, state: 'not_targeted_to_campaign', skipped: true, reason: 'holdout', behaviors: [] }),
      ]);
      expect((await api(app, tenant).get(`/users/${held.id}/events`).expect(200)).body.behaviors).toEqual({});
      const [stored] = (await api(app, tenant).get(`/users/${held.id}/timeline?limit=1`).expect(200)).body.events;
      expect(stored).toMatchObject({ name: 'purchase', status: 'processed', reason: 'not_targeted_to_campaign', points_earned: 0 });

      // A variant: the common behavior and its own; the other variant's never listed.
      const answerA = (await v1(tenant, a, { events: { purchase: { amount: 20 } } }).expect(200)).body;
      expect(Object.keys(answerA.behaviors).sort()).toEqual([buyerA, visitor].sort());
      expect(answerA.available_points).toBe(5 + 5 + 50);
      const answerB = (await v1(tenant, b, { events: { purchase: { amount: 20 } } }).expect(200)).body;
      expect(Object.keys(answerB.behaviors).sort()).toEqual([buyerB, visitor].sort());
      expect(answerB.available_points).toBe(5 + 70);
      expect(Object.keys((await api(app, tenant).get(`/users/${b.id}/events`).expect(200)).body.behaviors).sort()).toEqual([buyerB, visitor].sort());
    });

    it('perform fails for a holdout customer and completes only a variant customer\'s behaviors', async () => {
      const { tenant, campaign, behaviors } = await shop();
      const by = await customersByGroup(tenant, campaign.id);
      const perform = (customer: Customer) =>
        request(app.getHttpServer())
          .post(`/priv/v2/apps/${tenant.apiKey}/users/${customer.id}/campaigns/${campaign.id}/perform`)
          .auth(tenant.apiKey, tenant.apiSecret)
          .send({ domain: 'complete_campaign' });
      const refused = await perform(by.holdout[0]);
      expectError(refused, 422, 'failed_to_perform');
      expect(refused.body.errors.message).toContain('holdout');
      await perform(by.A[0]).expect(200);
      const progress = (await api(app, tenant).get(`/users/${by.A[0].id}/events`).expect(200)).body.behaviors;
      expect(Object.keys(progress).sort()).toEqual([behaviors[0].name, behaviors[1].name].sort());
      expect(progress[behaviors[1].name].achieved).toBe(1);
    });

    it('assigns through the queue (V2) at the time the event occurred, measured by that event', async () => {
      const tenant = await createTenant(app);
      const campaign = await createCampaign(app, tenant, { experiment: { holdout_percent: 0, metric: { event: 'purchase', attribute: 'amount' } } });
      await createBehaviors(app, tenant, campaign.id, [{ name: `Buyer ${campaign.id}`, event: 'purchase', points: 1 }]);
      const customer = await createCustomer(app, tenant);
      const occurred = '2026-11-20T10:00:00.000Z';
      await request(app.getHttpServer())
        .post(`/priv/v2/apps/${tenant.apiKey}/events`)
        .auth(tenant.apiKey, tenant.apiSecret)
        .send({ events: [{ user_id: customer.id, name: 'purchase', occurred_at: occurred, context: { amount: 12.5 } }] })
        .expect(200);
      await waitFor(async () => (await groupOf(tenant, customer, campaign.id)) !== undefined);
      const user = (await api(app, tenant).get(`/users/${customer.id}`).expect(200)).body.user;
      expect(user.experiments).toEqual([{ campaign_id: campaign.id, group: 'treatment', assigned_at: occurred }]);
      const r = await results(tenant, campaign.id);
      expect(r.started_at).toBe(occurred);
      expect(r.groups.find((g: { name: string }) => g.name === 'treatment')).toMatchObject({ customers: 1, converted: 1, metric_sum: 12.5, achievements: 1, points_credited: 1 });
    });

    it('locks holdout_percent and variants once a customer is assigned; metric stays editable', async () => {
      const tenant = await createTenant(app);
      const campaign = await createCampaign(app, tenant, { experiment: EXPERIMENT });
      const put = (experiment: unknown) =>
        api(app, tenant).put(`/management/campaigns/${campaign.id}`).send({ campaign: { name: campaign.name, status: 'live', starts_at: campaign.starts_at, ends_at: campaign.ends_at, experiment } });
      // Before any assignment, anything may change.
      await put({ ...EXPERIMENT, holdout_percent: 20 }).expect(200);
      await v1(tenant, await createCustomer(app, tenant), { events: { visit: 1 } }).expect(200);
      const started = (await api(app, tenant).get(`/management/campaigns/${campaign.id}`).expect(200)).body.campaign.experiment;
      expect(started.started_at).not.toBeNull();
      for (const changed of [{ ...EXPERIMENT, holdout_percent: 30 }, { ...EXPERIMENT, holdout_percent: 20, variants: [{ name: 'A', weight: 2 }, { name: 'B', weight: 1 }] }, null]) {
        expect(expectError(await put(changed), 400, 'validation')).toEqual(['campaign.experiment']);
      }
      const edited = (await put({ ...EXPERIMENT, holdout_percent: 20, metric: { event: 'order' } }).expect(200)).body.campaign.experiment;
      expect(edited).toEqual({ ...EXPERIMENT, holdout_percent: 20, metric: { event: 'order', attribute: null }, started_at: started.started_at, ended_at: null, winner: null });
      // An experiment ended before anyone was assigned is locked too.
      const unstarted = await createCampaign(app, tenant, { status: 'paused', experiment: EXPERIMENT });
      await api(app, tenant).post(`/management/campaigns/${unstarted.id}/experiment/end`).send({ winner: 'A' }).expect(200);
      const change = await api(app, tenant)
        .put(`/management/campaigns/${unstarted.id}`)
        .send({ campaign: { name: unstarted.name, status: 'live', starts_at: unstarted.starts_at, ends_at: unstarted.ends_at, experiment: null } });
      expect(expectError(change, 400, 'validation')).toEqual(['campaign.experiment']);
    });
  });

  describe('results', () => {
    it("counts each group's customers, conversion and metric, and compares them with the formulas of the contract", async () => {
      const { tenant, campaign } = await shop();
      const by = await customersByGroup(tenant, campaign.id);
      // Purchases: x per customer is the sum of amounts (non-converters count 0).
      const amounts = new Map<Customer, number[]>([
        [by.holdout[0], [10]],
        [by.A[0], [15, 5]],
        [by.A[1], [30]],
        [by.B[0], [45]],
      ]);
      for (const [customer, list] of amounts) for (const amount of list) await v1(tenant, customer, { events: { purchase: { amount } } }).expect(200);
      const r = await results(tenant, campaign.id);

      const names = ['holdout', 'A', 'B'];
      expect(r.groups.map((g: { name: string }) => g.name)).toEqual(names);
      const xs = names.map((name) => by[name].map((c) => (amounts.get(c) ?? []).reduce((s, v) => s + v, 0)));
      const stats = xs.map((x) => {
        const n = x.length;
        const mean = x.reduce((s, v) => s + v, 0) / n;
        return { n, p: x.filter((v) => v > 0).length / n, mean, v: x.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1), converted: x.filter((v) => v > 0).length };
      });
      names.forEach((name, i) => {
        const g = r.groups[i];
        expect(g).toMatchObject({ name, customers: stats[i].n, converted: stats[i].converted });
        close(g.conversion_rate, stats[i].p);
        close(g.metric_sum, xs[i].reduce((s, v) => s + v, 0));
        close(g.metric_mean, stats[i].mean);
        close(g.metric_variance, stats[i].v);
      });
      // Each variant against the holdout.
      expect(r.comparisons.map((c: { group: string; against: string }) => [c.group, c.against])).toEqual([
        ['A', 'holdout'],
        ['B', 'holdout'],
      ]);
      for (const [k, comparison] of r.comparisons.entries()) {
        const [t, c] = [stats[k + 1], stats[0]];
        const absolute = t.p - c.p;
        const se = Math.sqrt((t.p * (1 - t.p)) / t.n + (c.p * (1 - c.p)) / c.n);
        const pooled = (t.converted + c.converted) / (t.n + c.n);
        close(comparison.conversion.absolute, absolute);
        close(comparison.conversion.relative, absolute / c.p);
        close(comparison.conversion.ci95[0], absolute - 1.959964 * se);
        close(comparison.conversion.ci95[1], absolute + 1.959964 * se);
        close(comparison.conversion.p_value, twoSided(absolute / Math.sqrt(pooled * (1 - pooled) * (1 / t.n + 1 / c.n))));
        const meanDiff = t.mean - c.mean;
        const meanSe = Math.sqrt(t.v / t.n + c.v / c.n);
        close(comparison.mean.absolute, meanDiff);
        close(comparison.mean.relative, meanDiff / c.mean);
        close(comparison.mean.ci95[1], meanDiff + 1.959964 * meanSe);
        close(comparison.mean.p_value, twoSided(meanDiff / meanSe));
      }
      // The sample ratio: chi-square against 40% / 30% / 30%, 2 degrees of freedom (upper tail e^(-x/2)).
      const total = stats.reduce((s, g) => s + g.n, 0);
      const chi = [0.4, 0.3, 0.3].reduce((s, share, i) => s + (stats[i].n - total * share) ** 2 / (total * share), 0);
      close(r.sample_ratio.chi_square, chi);
      close(r.sample_ratio.p_value, Math.exp(-chi / 2));
      expect(r.sample_ratio.mismatch).toBe(Math.exp(-chi / 2) < 0.001);
      // Achievements and points by group: the holdout's none.
      expect(r.groups[0]).toMatchObject({ achievements: 0, points_credited: 0 });
      expect(r.groups[1].points_credited).toBe(by.A.length * 5 + 3 * 50);
    });

    it("takes a reversal's achievements and points back from the group, not the metric", async () => {
      const { tenant, campaign } = await shop({ ...EXPERIMENT, holdout_percent: 0 });
      const [customer] = (await customersByGroup(tenant, campaign.id, ['A'])).A;
      await v1(tenant, customer, { events: { purchase: { amount: 40 } }, transaction_id: 'order-1' }).expect(200);
      const before = (await results(tenant, campaign.id)).groups.find((g: { name: string }) => g.name === 'A');
      expect(before).toMatchObject({ converted: 1, achievements: 3, points_credited: 60 });
      await api(app, tenant).post(`/users/${customer.id}/events/reversals`).send({ reversal: { transaction_id: 'order-1' } }).expect(200);
      const after = (await results(tenant, campaign.id)).groups.find((g: { name: string }) => g.name === 'A');
      expect(after).toEqual({ ...before, achievements: 2, points_credited: 10 });
    });

    it('answers not_found for another organization, a campaign without an experiment, and an unknown one', async () => {
      const { tenant, campaign } = await shop();
      const other = await createTenant(app);
      expectError(await api(app, other).get(`/management/campaigns/${campaign.id}/experiment`), 404, 'not_found');
      expectError(await api(app, other).post(`/management/campaigns/${campaign.id}/experiment/end`).send({ winner: 'A' }), 404, 'not_found');
      const plain = await createCampaign(app, tenant);
      expectError(await api(app, tenant).get(`/management/campaigns/${plain.id}/experiment`), 404, 'not_found');
      expectError(await api(app, tenant).get(`/management/campaigns/2147483000/experiment`), 404, 'not_found');
      expectError(await api(app, tenant).get(`/management/campaigns/x/experiment`), 404, 'not_found');
    });
  });

  describe('simulation', () => {
    it("reports the groups of the campaign's experiment by the live assignment", async () => {
      const { tenant, campaign } = await shop();
      const from = new Date(Date.now() - 60_000).toISOString();
      const by = await customersByGroup(tenant, campaign.id);
      const created = await api(app, tenant)
        .post(`/management/campaigns/${campaign.id}/simulations`)
        .send({ simulation: { from, to: new Date(Date.now() + 60_000).toISOString() } })
        .expect(202);
      let simulation: { id: number; status: string; results: { groups: unknown } } = created.body.simulation;
      await waitFor(async () => {
        simulation = (await api(app, tenant).get(`/management/simulations/${simulation.id}`).expect(200)).body.simulation;
        return simulation.status === 'completed';
      });
      // Every stored event is a visit (5 points for a customer of a variant, nothing for the holdout).
      const variant = (name: string) => ({ customers: by[name].length, achievements: by[name].length, points: 5 * by[name].length });
      expect(simulation.results.groups).toEqual({ holdout: { customers: by.holdout.length, achievements: 0, points: 0 }, A: variant('A'), B: variant('B') });
    });
  });

  describe('ending', () => {
    it('ends with a winner: results frozen, everyone evaluated as the winner, a second end refused', async () => {
      const { tenant, campaign, behaviors } = await shop();
      const by = await customersByGroup(tenant, campaign.id);
      await v1(tenant, by.A[0], { events: { purchase: { amount: 10 } } }).expect(200);
      const end = (body: object) => api(app, tenant).post(`/management/campaigns/${campaign.id}/experiment/end`).send(body);

      expect(expectError(await end({ winner: 'C' }), 400, 'validation')).toEqual(['winner']);
      expect(expectError(await end({}), 400, 'missing_data')).toEqual(['winner']);
      const frozen = (await end({ winner: 'B' }).expect(200)).body.experiment;
      expect(frozen).toMatchObject({ winner: 'B', ended_at: expect.any(String) });
      expect(frozen.groups.map((g: { customers: number }) => g.customers)).toEqual([by.holdout.length, by.A.length, by.B.length]);
      expect(expectError(await end({ winner: 'B' }), 409, 'already_ended')).toEqual([]);

      // The holdout is now evaluated as B: the common behavior and B's.
      const answer = (await v1(tenant, by.holdout[0], { events: { purchase: { amount: 99 } } }).expect(200)).body;
      expect(Object.keys(answer.behaviors).sort()).toEqual([behaviors[2].name, behaviors[0].name].sort());
      expect(answer.available_points).toBe(70);
      // New customers are not assigned; the answer stays as of the end.
      const late = await createCustomer(app, tenant);
      await v1(tenant, late, { events: { purchase: { amount: 1 } } }).expect(200);
      expect((await api(app, tenant).get(`/users/${late.id}`).expect(200)).body.user.experiments).toEqual([]);
      expect(await results(tenant, campaign.id)).toEqual(frozen);
      expect((await api(app, tenant).get(`/management/campaigns/${campaign.id}`).expect(200)).body.campaign.experiment).toMatchObject({ winner: 'B', ended_at: frozen.ended_at });
    });
  });
});
