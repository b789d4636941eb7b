import type { INestApplication } from '@nestjs/common';
import type { Response } from 'supertest';
import { DEFAULT_LIMITS, type Limits } from '../src/config/limits.js';
import { createTestApp } from './support/app.js';
import { expectError, expectErrorAmongOthers } from './support/errors.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';

/** Contract §18: the limits on behaviors and goals, and the names refused as prototype keys. */

type Json = Record<string, unknown>;

const MAX_INT = 2_147_483_647;
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'];

let counter = 0;
const nextName = (base = 'Behavior') => `${base} ${++counter}-${Date.now()}`;

/** `count` goals on one event, in groups of at most 50. */
function goalGroups(count: number, event = 'visit', achievement: Json = {}): Json[] {
  const groups: Json[] = [];
  for (let start = 0; start < count; start += 50) {
    const size = Math.min(50, count - start);
    groups.push({ goals: Array.from({ length: size }, (_, i) => ({ achievement: { name: `g${start + i}`, internal_event_name: event, ...achievement } })) });
  }
  return groups;
}

const behavior = (goals = 1, extra: Json = {}): Json => ({ name: nextName(), data: {}, goal_groups: goalGroups(goals), ...extra });

/** The one validation answer of a limit: its message names the limit's value and its setting. */
function expectLimit(res: Response, field: string, message: string | RegExp): void {
  expect(expectError(res, 400, 'validation')).toEqual([field]);
  expect(res.body.errors.message).toEqual(typeof message === 'string' ? expect.stringContaining(message) : expect.stringMatching(message));
}

function context(limits: Partial<Limits>) {
  const ctx = {} as { app: INestApplication; tenant: TestTenant };
  beforeAll(async () => {
    ctx.app = await createTestApp({ limits: { ...DEFAULT_LIMITS, ...limits } });
    ctx.tenant = await createTenant(ctx.app);
  });
  afterAll(() => ctx.app.close());
  return ctx;
}

function client(ctx: { app: INestApplication; tenant: TestTenant }) {
  const on = (tenant?: TestTenant) => api(ctx.app, tenant ?? ctx.tenant);
  return {
    batch: (campaign: number, behaviors: unknown[], tenant?: TestTenant) => on(tenant).post(`/management/campaigns/${campaign}/behaviors/_batch`).send({ behaviors }),
    update: (id: number, changes: Json, tenant?: TestTenant) => on(tenant).put(`/management/behaviors/${id}`).send({ behavior: changes }),
    remove: (id: number) => on().delete(`/management/behaviors/${id}`),
    list: async (campaign: number) => (await on().get(`/management/campaigns/${campaign}/behaviors`).expect(200)).body.behaviors as Json[],
    campaign: (status: string, tenant?: TestTenant) => createCampaign(ctx.app, tenant ?? ctx.tenant, { status }),
    setStatus: (campaign: { id: number; name: string; starts_at: string; ends_at: string }, status: string, tenant?: TestTenant) =>
      on(tenant).put(`/management/campaigns/${campaign.id}`).send({ campaign: { name: campaign.name, status, starts_at: campaign.starts_at, ends_at: campaign.ends_at } }),
  };
}

describe('rules limits (a deployment with small limits)', () => {
  const ctx = context({ behaviorsPerCampaign: 3, goalsPerBehavior: 4, liveGoalsPerOrganization: 10, uniqueGoalEventCount: 5, completionPoints: 1_000 });
  const c = client(ctx);

  describe('behaviors per campaign (LIMIT_BEHAVIORS_PER_CAMPAIGN)', () => {
    it('takes a campaign to the limit, and refuses the batch that would pass it, storing none of it', async () => {
      const campaign = (await c.campaign('draft')).id;
      expect((await c.batch(campaign, [behavior(), behavior()])).status).toBe(201);
      const over = await c.batch(campaign, [behavior(), behavior()]);
      expectLimit(over, 'behaviors', 'a campaign may hold at most 3 behaviors (LIMIT_BEHAVIORS_PER_CAMPAIGN): it holds 2 and the batch adds 2');
      expect(await c.list(campaign)).toHaveLength(2);
      expect((await c.batch(campaign, [behavior()])).status).toBe(201);
      expectLimit(await c.batch(campaign, [behavior()]), 'behaviors', 'at most 3 behaviors (LIMIT_BEHAVIORS_PER_CAMPAIGN)');
    });

    it('refuses a first batch over the limit, and counts no deleted behavior', async () => {
      const campaign = (await c.campaign('draft')).id;
      expectLimit(await c.batch(campaign, [behavior(), behavior(), behavior(), behavior()]), 'behaviors', 'it holds 0 and the batch adds 4');
      const stored = (await c.batch(campaign, [behavior(), behavior(), behavior()]).expect(201)).body.behaviors;
      await c.remove(stored[0].id).expect(200);
      expect((await c.batch(campaign, [behavior()])).status).toBe(201);
    });
  });

  describe('goals per behavior (LIMIT_GOALS_PER_BEHAVIOR)', () => {
    it('counts the goals of all groups together, on a batch and on an update', async () => {
      const campaign = (await c.campaign('draft')).id;
      const twoGroups = (second: number) => [{ goals: [{ achievement: { name: 'a' } }, { achievement: { name: 'b' } }] }, goalGroups(second, 'buy')[0]];
      const res = await c.batch(campaign, [behavior(1, { goal_groups: twoGroups(2) })]);
      expect(res.status).toBe(201);
      const over = await c.batch(campaign, [behavior(1, { goal_groups: twoGroups(3) })]);
      expect(expectErrorAmongOthers(over, 400, 'validation')).toEqual(['behaviors.0.goal_groups']);
      expect(over.body.errors.message).toContain('hold 5 goals: a behavior may hold at most 4 goals over all its goal groups (LIMIT_GOALS_PER_BEHAVIOR)');
      const update = await c.update(res.body.behaviors[0].id, { goal_groups: twoGroups(3) });
      expect(expectErrorAmongOthers(update, 400, 'validation')).toEqual(['behavior.goal_groups']);
      expect(update.body.errors.message).toContain('at most 4 goals over all its goal groups (LIMIT_GOALS_PER_BEHAVIOR)');
    });
  });

  describe('live goals per organization (LIMIT_LIVE_GOALS_PER_ORGANIZATION)', () => {
    it('counts the goals of live campaigns only, and refuses each write that would pass the limit', async () => {
      const tenant = await createTenant(ctx.app);
      const live = await c.campaign('live', tenant);
      const draft = await c.campaign('draft', tenant);
      const stored = (await c.batch(live.id, [behavior(4), behavior(4), behavior(2)], tenant).expect(201)).body.behaviors;
      // Another live campaign of the organization: its goals are counted with the first's.
      const second = await c.campaign('live', tenant);
      expectLimit(await c.batch(second.id, [behavior(1)], tenant), 'behaviors', /at most 10 goals \(LIMIT_LIVE_GOALS_PER_ORGANIZATION\): they hold 10 and this write adds 1$/);
      // A draft campaign's goals are not live: stored, but the campaign cannot become live with them.
      await c.batch(draft.id, [behavior(3)], tenant).expect(201);
      expectLimit(await c.setStatus(draft, 'live', tenant), 'campaign.status', 'they hold 10 and this write adds 3');
      expect((await api(ctx.app, tenant).get(`/management/campaigns/${draft.id}`).expect(200)).body.campaign.status).toBe('draft');
      // An update that adds goals to a live campaign is refused; one that removes goals is not.
      expectLimit(await c.update(stored[2].id, { goal_groups: goalGroups(3) }, tenant), 'behavior.goal_groups', 'they hold 10 and this write adds 1');
      expect((await c.update(stored[2].id, { goal_groups: goalGroups(1) }, tenant)).status).toBe(200);
      expect((await c.batch(second.id, [behavior(1)], tenant)).status).toBe(201);
      // Paused, the live campaign's goals no longer count: the draft campaign (3 goals) fits beside the second (1).
      await c.setStatus(live, 'paused', tenant).expect(200);
      expect((await c.setStatus(draft, 'live', tenant)).status).toBe(200);
      // Still under the limit for another organization.
      const other = await c.campaign('live');
      expect((await c.batch(other.id, [behavior(4), behavior(4)])).status).toBe(201);
    });

    it('lets only one of two concurrent writes pass the limit', async () => {
      const tenant = await createTenant(ctx.app);
      const [first, second, third] = await Promise.all([c.campaign('live', tenant), c.campaign('live', tenant), c.campaign('draft', tenant)]);
      // Each write alone fits the limit of 10 (6, 6 and 5 goals); any two together do not.
      await c.batch(third.id, [behavior(4), behavior(1)], tenant).expect(201);
      const answers = await Promise.all([
        c.batch(first.id, [behavior(4), behavior(2)], tenant),
        c.batch(second.id, [behavior(4), behavior(2)], tenant),
        c.setStatus(third, 'live', tenant),
      ]);
      expect(answers.filter((res) => res.status === 200 || res.status === 201)).toHaveLength(1);
      const refused = answers.filter((res) => res.status === 400);
      expect(refused).toHaveLength(2);
      for (const res of refused) expect(res.body.errors.message).toContain('at most 10 goals (LIMIT_LIVE_GOALS_PER_ORGANIZATION)');
    });
  });

  describe("a unique goal's event_count (LIMIT_UNIQUE_GOAL_EVENT_COUNT)", () => {
    it("bounds a unique goal's event_count, not a count goal's", async () => {
      const campaign = (await c.campaign('draft')).id;
      const unique = (eventCount: number) => behavior(1, { goal_groups: goalGroups(1, 'visit', { type: 'unique', unique_attribute: 'store_id', event_count: eventCount }) });
      expect((await c.batch(campaign, [unique(5)])).status).toBe(201);
      const over = await c.batch(campaign, [unique(6)]);
      expect(expectErrorAmongOthers(over, 400, 'validation')).toEqual(['behaviors.0.goal_groups.0.goals.0.achievement.event_count']);
      expect(over.body.errors.message).toContain("is 6: a unique goal's event_count may be at most 5 (LIMIT_UNIQUE_GOAL_EVENT_COUNT)");
      expect((await c.batch(campaign, [behavior(1, { goal_groups: goalGroups(1, 'visit', { event_count: 6 }) })])).status).toBe(201);
    });
  });

  describe('points of one completion (LIMIT_COMPLETION_POINTS)', () => {
    it("sums the behavior's, its goals' and its points outcomes' points, on a batch and on an update", async () => {
      const campaign = (await c.campaign('draft')).id;
      const pointed = (points: number) =>
        behavior(1, { points, goal_groups: goalGroups(2, 'visit', { points: 300 }), outcome_config: [{ points: 200 }, { points: 100 }] });
      const res = await c.batch(campaign, [pointed(100)]);
      expect(res.status).toBe(201);
      const over = await c.batch(campaign, [pointed(101)]);
      expect(expectErrorAmongOthers(over, 400, 'validation')).toEqual(['behaviors.0.points']);
      expect(over.body.errors.message).toContain('make 1001 points for one completion: a completion may award at most 1000 points (LIMIT_COMPLETION_POINTS)');
      const update = await c.update(res.body.behaviors[0].id, { outcome_config: [{ points: 201 }, { points: 100 }] });
      expect(expectErrorAmongOthers(update, 400, 'validation')).toEqual(['behavior.points']);
    });
  });

  describe('names that are prototype keys', () => {
    it('are refused as names of behaviors, goals, the events they listen to or raise, and attributes', async () => {
      const campaign = (await c.campaign('draft')).id;
      for (const name of PROTOTYPE_KEYS) {
        const sent = [
          behavior(1, { name }),
          behavior(1, { goal_groups: [{ goals: [{ achievement: { name } }] }] }),
          behavior(1, { goal_groups: [{ goals: [{ achievement: { name: 'a', internal_event_name: name } }] }] }),
          behavior(1, { goal_groups: [{ goals: [{ achievement: { name: 'a', type: 'unique', unique_attribute: name } }] }] }),
          behavior(1, { goal_groups: [{ goals: [{ achievement: { name: 'a', criteria: [{ field: `context.${name}`, op: 'exists' }] } }] }] }),
          behavior(1, { goal_groups: [{ goals: [{ achievement: { name: 'a', criteria: [{ field: name, op: 'eq', value: 1 }] } }] }] }),
          behavior(1, { outcome_config: [{ event: { name } }] }),
        ];
        const res = await c.batch(campaign, sent);
        expect(expectErrorAmongOthers(res, 400, 'validation')).toEqual([
          'behaviors.0.name',
          'behaviors.1.goal_groups.0.goals.0.achievement.name',
          'behaviors.2.goal_groups.0.goals.0.achievement.internal_event_name',
          'behaviors.3.goal_groups.0.goals.0.achievement.unique_attribute',
          'behaviors.4.goal_groups.0.goals.0.achievement.criteria.0.field',
          'behaviors.5.goal_groups.0.goals.0.achievement.criteria.0.field',
          'behaviors.6.outcome_config.0.event.name',
        ]);
        expect(res.body.errors.details[0].message).toBe('must not be a prototype key (__proto__, constructor, prototype)');
      }
      expect(await c.list(campaign)).toEqual([]);
    });

    it('are refused in a campaign\'s targeting, and a behavior cannot be renamed to one', async () => {
      const targeting = await api(ctx.app, ctx.tenant)
        .post('/management/campaigns')
        .send({
          campaign: {
            name: nextName('Campaign'),
            starts_at: '2026-03-01T00:00:00Z',
            ends_at: '2026-06-01T00:00:00Z',
            targeting: [{ field: 'user.attributes.constructor', op: 'exists' }],
          },
        });
      expect(expectError(targeting, 400, 'validation')).toEqual(['campaign.targeting']);
      expect(targeting.body.errors.message).toContain('user.attributes.constructor: an attribute name must not be a prototype key');
      // A creative group's targeting alike.
      const draft = await c.campaign('draft');
      const lineItem = await api(ctx.app, ctx.tenant)
        .post(`/management/campaigns/${draft.id}/line_items`)
        .send({ line_item: { name: 'Main', status: 'live', starts_at: draft.starts_at, ends_at: draft.ends_at } })
        .expect(201);
      const group = await api(ctx.app, ctx.tenant)
        .post(`/management/line_items/${lineItem.body.line_items[0].id}/creative_groups`)
        .send({ creative_group: { name: 'Targeted', status: 'live', starts_at: draft.starts_at, ends_at: draft.ends_at, targeting: [{ field: 'user.attributes.__proto__', op: 'exists' }] } });
      expect(expectErrorAmongOthers(group, 400, 'validation')).toEqual(['creative_group.targeting']);
      const campaign = (await c.campaign('draft')).id;
      const stored = (await c.batch(campaign, [behavior()]).expect(201)).body.behaviors[0];
      expect(expectErrorAmongOthers(await c.update(stored.id, { name: '__proto__' }), 400, 'validation')).toEqual(['behavior.name']);
    });
  });
});

describe('rules limits: the probe sent again (the default limits)', () => {
  const ctx = context({});
  const c = client(ctx);

  it('refuses six batches of 10,000 goals each on one event name (60,000 goals) to a live campaign', async () => {
    const campaign = (await c.campaign('live')).id;
    const batch = () => Array.from({ length: 100 }, () => behavior(100));
    for (let i = 0; i < 6; i += 1) {
      expectLimit(await c.batch(campaign, batch()), 'behaviors', 'at most 5000 goals (LIMIT_LIVE_GOALS_PER_ORGANIZATION): they hold 0 and this write adds 10000');
    }
    expect(await c.list(campaign)).toEqual([]);
  });

  it('refuses a behavior whose points, goal points and points outcome are each 2,147,483,647', async () => {
    const campaign = (await c.campaign('live')).id;
    const sent = behavior(1, { points: MAX_INT, goal_groups: goalGroups(1, 'visit', { points: MAX_INT }), outcome_config: [{ points: MAX_INT }] });
    const res = await c.batch(campaign, [sent]);
    expect(expectErrorAmongOthers(res, 400, 'validation')).toEqual(['behaviors.0.points']);
    expect(res.body.errors.message).toContain(`make ${3 * MAX_INT} points for one completion: a completion may award at most ${MAX_INT} points (LIMIT_COMPLETION_POINTS)`);
  });
});
