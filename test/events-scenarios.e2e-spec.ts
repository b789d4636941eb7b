import type { INestApplication } from '@nestjs/common';
import type { Response } from 'supertest';
import { createTestApp } from './support/app.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';

/**
 * Behavior rules as a customer lives them: each scenario builds its campaign and behaviors through the management API,
 * then drives POST /users/:user_id/events, placing every event in time with the body `date` (dates in the past, after
 * the campaign's starts_at; the server's clock is now, so the campaign is running).
 *
 * Every describe has an organization of its own: rules are per organization, so behaviors of one scenario never
 * listen to another's events.
 */

type Json = Record<string, unknown>;

interface GoalExplanation {
  goal_name: string;
  verdict: string;
  detail: string;
}
interface BehaviorExplanation {
  behavior_name: string;
  verdict: string;
  detail: string;
  goals: GoalExplanation[];
}
interface EventExplanation {
  event_index: number;
  event: string;
  depth: number;
  campaigns: Array<{ campaign_id: number; state: string; behaviors: BehaviorExplanation[] }>;
}
interface GoalProgressView {
  completed: boolean;
  progress: { current_count: number; total_count: number };
}
interface BehaviorView {
  achieved: number;
  current_count: number;
  total_count: number;
  goals: Record<string, GoalProgressView>;
  deltas: { current_count: number; achieved: number; data?: string[] };
}
interface TimelineEntry {
  name: string;
  occurred_at: string;
  status: string;
  reason: string | null;
  points_earned: number;
}

/** A Monday, midnight UTC: weekly windows (604800 s) and hourly windows (3600 s) of these campaigns start on it. */
const STARTS_AT = '2026-01-05T00:00:00.000Z';

describe('event scenarios', () => {
  let app: INestApplication;
  let seq = 0;
  const run = Date.now().toString(36);
  const uniqueName = (base: string) => `${base} ${++seq} ${run}`;

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  /** An organization (UTC) with one live campaign that started on STARTS_AT. */
  async function setup(): Promise<{ tenant: TestTenant; campaignId: number }> {
    const tenant = await createTenant(app, { time_zone: 'UTC' });
    const campaign = await createCampaign(app, tenant, { starts_at: STARTS_AT });
    return { tenant, campaignId: campaign.id };
  }

  /** Creates behaviors with the batch route (contract §6) and answers their names in order. */
  async function createBehaviors(tenant: TestTenant, campaignId: number, behaviors: Json[]): Promise<string[]> {
    const res = await api(app, tenant).post(`/management/campaigns/${campaignId}/behaviors/_batch`).send({ behaviors });
    expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: expect.objectContaining({ status: 'ok' }) });
    return (res.body.behaviors as Array<{ name: string }>).map((b) => b.name);
  }

  /** A V1 event submission with explain=true; fails with the answer's error when it is not a 200. */
  async function send(tenant: TestTenant, userId: string, events: Json, date?: string, extra: Json = {}): Promise<Response> {
    const res = await api(app, tenant)
      .post(`/users/${userId}/events?explain=true`)
      .send({ events, ...(date ? { date } : {}), ...extra });
    expect({ status: res.status, errors: res.body.errors }).toEqual({ status: 200, errors: undefined });
    return res;
  }

  /** The explanations of one behavior in an answer, for every evaluated instance (raised events included). */
  function behaviorExplanations(res: Response, behaviorName: string): BehaviorExplanation[] {
    return (res.body.explanation as EventExplanation[]).flatMap((e) => e.campaigns.flatMap((c) => c.behaviors.filter((b) => b.behavior_name === behaviorName)));
  }

  /** The single behavior explanation of a submitted one-instance request. */
  function explanationOf(res: Response, behaviorName: string): BehaviorExplanation {
    const found = behaviorExplanations(res, behaviorName);
    expect(found).toHaveLength(1);
    return found[0];
  }

  /** The verdict of the (single) goal of a behavior for a one-instance request. */
  function goalVerdict(res: Response, behaviorName: string): string {
    const goals = explanationOf(res, behaviorName).goals;
    expect(goals).toHaveLength(1);
    return goals[0].verdict;
  }

  function behaviorOf(res: Response, behaviorName: string): BehaviorView {
    const view = (res.body.behaviors as Record<string, BehaviorView>)[behaviorName];
    expect(view).toBeDefined();
    return view;
  }

  function goalCount(res: Response, behaviorName: string, goalName: string): number {
    return behaviorOf(res, behaviorName).goals[goalName].progress.current_count;
  }

  async function getUser(tenant: TestTenant, userId: string): Promise<{ available_points: number; lifetime_points: number }> {
    const res = await api(app, tenant).get(`/users/${userId}`).expect(200);
    return { available_points: res.body.user.available_points, lifetime_points: res.body.user.lifetime_points };
  }

  async function retrieval(tenant: TestTenant, userId: string): Promise<{ available_points: number; behaviors: Record<string, Json> }> {
    const res = await api(app, tenant).get(`/users/${userId}/events`).expect(200);
    expect(res.body.status).toBe('ok');
    return res.body;
  }

  describe('"3 unique stores in a week": unique goal on store_id, once per week', () => {
    let tenant: TestTenant;
    let behavior: string;

    beforeAll(async () => {
      const s = await setup();
      tenant = s.tenant;
      [behavior] = await createBehaviors(tenant, s.campaignId, [
        {
          name: uniqueName('Three stores a week'),
          points: 50,
          data: { period: 604800, max_times_achievable_per_period: 1 },
          goal_groups: [{ goals: [{ achievement: { name: 'store_visit', event_count: 3, type: 'unique', unique_attribute: 'store_id' } }] }],
        },
      ]);
    });

    it('completes on the third distinct store, refuses a fourth store the same week, and completes again the next week', async () => {
      const user = await createCustomer(app, tenant, { time_zone: 'UTC' });
      const visit = (store: string, date: string) => send(tenant, user.id, { store_visit: { store_id: store } }, date);

      // Week of Monday 2026-03-02.
      const first = await visit('s1', '2026-03-02T10:00:00Z');
      expect(first.body).toMatchObject({ status: 'ok', qualified: true, state: 'qualified', available_points: 0 });
      expect(goalVerdict(first, behavior)).toBe('counted');
      expect(behaviorOf(first, behavior).goals.store_visit.progress).toEqual(expect.objectContaining({ current_count: 1, total_count: 3 }));
      // The stored values are never answered (a customer's state must not make answers grow): only this request's.
      expect(behaviorOf(first, behavior).goals.store_visit.progress).not.toHaveProperty('pivots');
      expect(behaviorOf(first, behavior).deltas).toEqual({ current_count: 0, achieved: 0, data: ['s1'], pivot_count: 1 });

      const second = await visit('s2', '2026-03-03T10:00:00Z');
      expect(goalVerdict(second, behavior)).toBe('counted');
      expect(behaviorOf(second, behavior).goals.store_visit.progress).toMatchObject({ current_count: 2 });
      expect(behaviorOf(second, behavior).deltas).toEqual({ current_count: 0, achieved: 0, data: ['s2'], pivot_count: 1 });

      const repeated = await visit('s2', '2026-03-03T18:00:00Z');
      expect(repeated.body).toMatchObject({ state: 'qualified', available_points: 0 });
      expect(goalVerdict(repeated, behavior)).toBe('repeated_pivot');
      expect(behaviorOf(repeated, behavior).goals.store_visit.progress).toMatchObject({ current_count: 2 });
      expect(behaviorOf(repeated, behavior).deltas).toEqual({ current_count: 0, achieved: 0 });

      const fourth = await visit('s3', '2026-03-04T10:00:00Z');
      expect(fourth.body).toMatchObject({ status: 'ok', qualified: true, state: 'qualified', available_points: 50, user: { available_points: 50 } });
      expect(fourth.body.deltas[behavior]).toEqual({ current_count: 0, achieved: 1, reset: true });
      expect(explanationOf(fourth, behavior).verdict).toBe('completed');
      expect(behaviorOf(fourth, behavior).achieved).toBe(1);
      expect(behaviorOf(fourth, behavior).goals.store_visit.progress.current_count).toBe(0);

      // A fourth store the same week: the weekly cap holds, nothing is earned and the visit is not kept for later.
      const capped = await visit('s4', '2026-03-06T10:00:00Z');
      expect(capped.body).toMatchObject({ status: 'ok', qualified: false, state: 'reached_frequency_period_cap', available_points: 50 });
      expect(capped.body.deltas).toEqual({});
      const cap = explanationOf(capped, behavior);
      expect(cap.verdict).toBe('cap_reached');
      expect(cap.detail).toContain('takes progress again from 2026-03-09T00:00:00.000Z');
      expect(behaviorOf(capped, behavior).goals.store_visit.progress.current_count).toBe(0);

      // Next week (Monday 2026-03-09): three distinct stores again, s4 counts as new (the capped visit was dropped).
      const w2a = await visit('s4', '2026-03-09T09:00:00Z');
      expect(w2a.body.state).toBe('qualified');
      expect(goalVerdict(w2a, behavior)).toBe('counted');
      const w2b = await visit('s1', '2026-03-10T09:00:00Z');
      expect(behaviorOf(w2b, behavior).goals.store_visit.progress).toMatchObject({ current_count: 2 });
      expect(behaviorOf(w2b, behavior).deltas).toEqual({ current_count: 0, achieved: 0, data: ['s1'], pivot_count: 1 });
      expect(w2b.body.available_points).toBe(50);
      const w2c = await visit('s2', '2026-03-11T09:00:00Z');
      expect(w2c.body).toMatchObject({ state: 'qualified', available_points: 100 });
      expect(w2c.body.deltas[behavior]).toEqual({ current_count: 0, achieved: 1, reset: true });
      expect(behaviorOf(w2c, behavior).achieved).toBe(2);

      expect(await getUser(tenant, user.id)).toEqual({ available_points: 100, lifetime_points: 100 });
      const retrieved = await retrieval(tenant, user.id);
      expect(retrieved.available_points).toBe(100);
      expect(retrieved.behaviors[behavior]).toMatchObject({ achieved: 2, max_times_repeatable: null, max_times_repeatable_per_period: 1, current_count: 0, total_count: 1 });
    });
  });

  describe("5-day streak in the customer's time zone: consecutive goal of 5 days", () => {
    let tenant: TestTenant;
    let behavior: string;

    beforeAll(async () => {
      const s = await setup();
      tenant = s.tenant;
      [behavior] = await createBehaviors(tenant, s.campaignId, [
        {
          name: uniqueName('Five-day streak'),
          points: 100,
          data: {},
          goal_groups: [{ goals: [{ achievement: { name: 'daily_open', internal_event_name: 'app_open', event_count: 5, data: { consecutive: true } } }] }],
        },
      ]);
    });

    it('counts New York local days: evening events on the next UTC day, a missed local day restarts, a second event the same local day adds nothing', async () => {
      const user = await createCustomer(app, tenant, { time_zone: 'America/New_York' });
      const open = (date: string) => send(tenant, user.id, { app_open: 1 }, date);
      const streak = (res: Response) => goalCount(res, behavior, 'daily_open');

      // February 2026: New York is UTC-5.
      const mon = await open('2026-02-02T20:00:00-05:00'); // 2026-02-03T01:00Z
      expect(goalVerdict(mon, behavior)).toBe('counted');
      expect(streak(mon)).toBe(1);

      // Local Tuesday, but the same UTC day as Monday evening: a new local day.
      const tue = await open('2026-02-03T18:00:00-05:00'); // 2026-02-03T23:00Z
      expect(goalVerdict(tue, behavior)).toBe('counted');
      expect(streak(tue)).toBe(2);

      // Still local Tuesday, already Wednesday in UTC: adds nothing.
      const tueAgain = await open('2026-02-03T21:00:00-05:00'); // 2026-02-04T02:00Z
      expect(goalVerdict(tueAgain, behavior)).toBe('same_day');
      expect(streak(tueAgain)).toBe(2);
      expect(behaviorOf(tueAgain, behavior).deltas).toEqual({ current_count: 0, achieved: 0 });

      // Local Wednesday is missed; Thursday just after local midnight is the UTC day after the last event: restarts.
      const thu = await open('2026-02-05T00:30:00-05:00'); // 2026-02-05T05:30Z
      expect(goalVerdict(thu, behavior)).toBe('streak_restarted');
      expect(streak(thu)).toBe(1);

      const fri = await open('2026-02-06T20:00:00-05:00');
      const sat = await open('2026-02-07T20:00:00-05:00');
      const sun = await open('2026-02-08T20:00:00-05:00');
      expect([streak(fri), streak(sat), streak(sun)]).toEqual([2, 3, 4]);
      expect(sun.body.available_points).toBe(0);
      expect(behaviorOf(sun, behavior).achieved).toBe(0);

      const fifth = await open('2026-02-09T20:00:00-05:00'); // local Monday, 2026-02-10T01:00Z
      expect(fifth.body).toMatchObject({ state: 'qualified', available_points: 100 });
      expect(fifth.body.deltas[behavior]).toEqual({ current_count: 0, achieved: 1, reset: true });
      expect(explanationOf(fifth, behavior).verdict).toBe('completed');
      expect(behaviorOf(fifth, behavior).achieved).toBe(1);

      expect(await getUser(tenant, user.id)).toEqual({ available_points: 100, lifetime_points: 100 });
      expect((await retrieval(tenant, user.id)).behaviors[behavior]).toMatchObject({ achieved: 1, consecutive: true });
    });

    it('counts Tokyo local days: morning events fall on the previous UTC day, and completes on the fifth local day, not before', async () => {
      const user = await createCustomer(app, tenant, { time_zone: 'Asia/Tokyo' });
      const open = (date: string) => send(tenant, user.id, { app_open: 1 }, date);
      const streak = (res: Response) => goalCount(res, behavior, 'daily_open');

      const tue = await open('2026-02-03T07:00:00+09:00'); // 2026-02-02T22:00Z
      expect(streak(tue)).toBe(1);
      // Local Tuesday again, but the next UTC day.
      const tueAgain = await open('2026-02-03 10:00:00 +0900'); // 2026-02-03T01:00Z, in the seed's date form
      expect(goalVerdict(tueAgain, behavior)).toBe('same_day');
      expect(streak(tueAgain)).toBe(1);
      // Local Wednesday, the same UTC day as the previous event.
      const wed = await open('2026-02-04T07:00:00+09:00'); // 2026-02-03T22:00Z
      expect(goalVerdict(wed, behavior)).toBe('counted');
      expect(streak(wed)).toBe(2);
      const thu = await open('2026-02-05T07:00:00+09:00');
      const fri = await open('2026-02-06T07:00:00+09:00');
      expect([streak(thu), streak(fri)]).toEqual([3, 4]);
      expect(fri.body.available_points).toBe(0);

      const sat = await open('2026-02-07T07:00:00+09:00');
      expect(sat.body).toMatchObject({ state: 'qualified', available_points: 100 });
      expect(sat.body.deltas[behavior]).toEqual({ current_count: 0, achieved: 1, reset: true });
      expect(await getUser(tenant, user.id)).toEqual({ available_points: 100, lifetime_points: 100 });
    });
  });

  describe('"3 times per hour" cap: max_times_achievable_per_period 3 with period 3600', () => {
    let tenant: TestTenant;
    let behavior: string;

    beforeAll(async () => {
      const s = await setup();
      tenant = s.tenant;
      [behavior] = await createBehaviors(tenant, s.campaignId, [
        {
          name: uniqueName('Check in, three an hour'),
          points: 10,
          data: { period: 3600, max_times_achievable_per_period: 3 },
          goal_groups: [{ goals: [{ achievement: { name: 'check_in' } }] }],
        },
      ]);
    });

    it('earns three times in an hour, answers the fourth with reached_frequency_period_cap and nothing earned, and earns again the next hour', async () => {
      const user = await createCustomer(app, tenant, { time_zone: 'UTC' });
      const checkIn = (date: string) => send(tenant, user.id, { check_in: 1 }, date);

      const earned: number[] = [];
      for (const minute of ['05', '20', '40']) {
        const res = await checkIn(`2026-03-02T10:${minute}:00Z`);
        expect(res.body).toMatchObject({ qualified: true, state: 'qualified' });
        expect(res.body.deltas[behavior]).toEqual({ current_count: 0, achieved: 1, reset: true });
        earned.push(res.body.available_points);
      }
      expect(earned).toEqual([10, 20, 30]);

      const fourth = await checkIn('2026-03-02T10:55:00Z');
      expect(fourth.body).toMatchObject({ qualified: false, state: 'reached_frequency_period_cap', available_points: 30, user: { available_points: 30 } });
      expect(fourth.body.deltas).toEqual({});
      const cap = explanationOf(fourth, behavior);
      expect(cap.verdict).toBe('cap_reached');
      expect(cap.detail).toContain('reached its period cap of 3 completion(s); takes progress again from 2026-03-02T11:00:00.000Z');
      expect(behaviorOf(fourth, behavior).achieved).toBe(3);

      const nextHour = await checkIn('2026-03-02T11:00:00Z');
      expect(nextHour.body).toMatchObject({ qualified: true, state: 'qualified', available_points: 40 });
      expect(nextHour.body.deltas[behavior]).toEqual({ current_count: 0, achieved: 1, reset: true });

      expect(await getUser(tenant, user.id)).toEqual({ available_points: 40, lifetime_points: 40 });
      expect((await retrieval(tenant, user.id)).behaviors[behavior]).toMatchObject({ achieved: 4, max_times_repeatable_per_period: 3 });
    });
  });

  describe('throttle: min_time_between_events', () => {
    let tenant: TestTenant;
    let oncePerMinute: string;
    let twicePerMinute: string;

    beforeAll(async () => {
      const s = await setup();
      tenant = s.tenant;
      [oncePerMinute, twicePerMinute] = await createBehaviors(tenant, s.campaignId, [
        {
          name: uniqueName('Tap, once a minute'),
          points: 10,
          data: {},
          goal_groups: [{ goals: [{ achievement: { name: 'tap', event_count: 3, data: { min_time_between_events: 60 } } }] }],
        },
        {
          name: uniqueName('Swipe, twice a minute'),
          points: 10,
          data: {},
          goal_groups: [{ goals: [{ achievement: { name: 'swipe', event_count: 10, data: { min_time_between_events: 60, min_time_between_events_count: 2 } } }] }],
        },
      ]);
    });

    const at = (seconds: number) => new Date(Date.parse('2026-03-02T12:00:00Z') + seconds * 1000).toISOString();

    it('ignores events 10 s apart until 60 s have passed, then counts again, and completes on the third counted event', async () => {
      const user = await createCustomer(app, tenant, { time_zone: 'UTC' });
      const tap = (seconds: number) => send(tenant, user.id, { tap: 1 }, at(seconds));
      const count = (res: Response) => goalCount(res, oncePerMinute, 'tap');

      const t0 = await tap(0);
      expect([goalVerdict(t0, oncePerMinute), count(t0)]).toEqual(['counted', 1]);

      const t10 = await tap(10);
      expect(t10.body).toMatchObject({ status: 'ok', state: 'qualified', available_points: 0 });
      expect(goalVerdict(t10, oncePerMinute)).toBe('throttled');
      expect(explanationOf(t10, oncePerMinute).goals[0].detail).toContain('counts again from 2026-03-02T12:01:00.000Z');
      expect(count(t10)).toBe(1);
      expect(behaviorOf(t10, oncePerMinute).deltas).toEqual({ current_count: 0, achieved: 0 });

      for (const seconds of [20, 30, 50]) {
        const res = await tap(seconds);
        expect([seconds, goalVerdict(res, oncePerMinute), count(res)]).toEqual([seconds, 'throttled', 1]);
      }

      const t60 = await tap(60);
      expect([goalVerdict(t60, oncePerMinute), count(t60)]).toEqual(['counted', 2]);
      const t70 = await tap(70);
      expect([goalVerdict(t70, oncePerMinute), count(t70)]).toEqual(['throttled', 2]);

      const t120 = await tap(120);
      expect(goalVerdict(t120, oncePerMinute)).toBe('counted');
      expect(explanationOf(t120, oncePerMinute).verdict).toBe('completed');
      expect(t120.body).toMatchObject({ available_points: 10 });
      expect(t120.body.deltas[oncePerMinute]).toEqual({ current_count: 0, achieved: 1, reset: true });
      expect(await getUser(tenant, user.id)).toEqual({ available_points: 10, lifetime_points: 10 });
    });

    it('with min_time_between_events_count 2, counts two events per 60 s window', async () => {
      const user = await createCustomer(app, tenant, { time_zone: 'UTC' });
      const swipe = async (seconds: number) => {
        const res = await send(tenant, user.id, { swipe: 1 }, at(seconds));
        return [seconds, goalVerdict(res, twicePerMinute), goalCount(res, twicePerMinute, 'swipe')];
      };

      expect(await swipe(0)).toEqual([0, 'counted', 1]);
      expect(await swipe(10)).toEqual([10, 'counted', 2]);
      expect(await swipe(20)).toEqual([20, 'throttled', 2]);
      expect(await swipe(59)).toEqual([59, 'throttled', 2]);
      // The window is (t - 60 s, t]: at 60 s only the event at 10 s is inside it.
      expect(await swipe(60)).toEqual([60, 'counted', 3]);
      expect(await swipe(70)).toEqual([70, 'counted', 4]);
      expect(await swipe(80)).toEqual([80, 'throttled', 4]);
      expect(await getUser(tenant, user.id)).toEqual({ available_points: 0, lifetime_points: 0 });
    });
  });

  describe('total cap: max_times_achievable 2', () => {
    let tenant: TestTenant;
    let behavior: string;

    beforeAll(async () => {
      const s = await setup();
      tenant = s.tenant;
      [behavior] = await createBehaviors(tenant, s.campaignId, [
        {
          name: uniqueName('Redeem twice'),
          points: 25,
          data: { max_times_achievable: 2 },
          goal_groups: [{ goals: [{ achievement: { name: 'redeem', points: 5 } }] }],
        },
      ]);
    });

    it('completes twice, then answers reached_frequency_cap; points are exact in the user, the answers and the retrieval', async () => {
      const user = await createCustomer(app, tenant, { time_zone: 'UTC' });
      const redeem = (date: string) => send(tenant, user.id, { redeem: 1 }, date);

      const first = await redeem('2026-03-02T10:00:00Z');
      expect(first.body).toMatchObject({ qualified: true, state: 'qualified', available_points: 30, user: { available_points: 30 } });
      expect(first.body.deltas[behavior]).toEqual({ current_count: 0, achieved: 1, reset: true });
      const second = await redeem('2026-03-03T10:00:00Z');
      expect(second.body).toMatchObject({ qualified: true, state: 'qualified', available_points: 60 });
      expect(second.body.deltas[behavior]).toEqual({ current_count: 0, achieved: 1, reset: true });

      for (const date of ['2026-03-04T10:00:00Z', '2026-03-05T10:00:00Z']) {
        const capped = await redeem(date);
        expect(capped.body).toMatchObject({ qualified: false, state: 'reached_frequency_cap', available_points: 60, user: { available_points: 60 } });
        expect(capped.body.deltas).toEqual({});
        const explanation = explanationOf(capped, behavior);
        expect(explanation.verdict).toBe('cap_reached');
        expect(explanation.detail).toContain('reached its total cap of 2 completion(s)');
        expect(behaviorOf(capped, behavior).achieved).toBe(2);
      }

      expect(await getUser(tenant, user.id)).toEqual({ available_points: 60, lifetime_points: 60 });
      const retrieved = await retrieval(tenant, user.id);
      expect(retrieved.available_points).toBe(60);
      expect(retrieved.behaviors[behavior]).toEqual({
        event_name: 'redeem',
        type: 'composite',
        max_times_repeatable: 2,
        max_times_repeatable_per_period: null,
        min_time_between_events: null,
        consecutive: false,
        achieved: 2,
        current_count: 0,
        total_count: 1,
        goals: expect.objectContaining({ redeem: expect.objectContaining({ completed: false, points: 5 }) }),
      });
    });
  });

  describe('event outcome chaining: an outcome event completes a behavior listening to it', () => {
    let tenant: TestTenant;
    let buyer: string;
    let bonusHunter: string;

    beforeAll(async () => {
      const s = await setup();
      tenant = s.tenant;
      [buyer, bonusHunter] = await createBehaviors(tenant, s.campaignId, [
        {
          name: uniqueName('Buyer'),
          points: 10,
          data: {},
          goal_groups: [{ goals: [{ achievement: { name: 'purchase' } }] }],
          outcome_config: [{ event: { name: 'bonus' } }],
        },
        {
          name: uniqueName('Bonus hunter'),
          points: 5,
          data: {},
          goal_groups: [{ goals: [{ achievement: { name: 'bonus' } }] }],
        },
      ]);
    });

    it('completes both behaviors from one submitted event, in the same request', async () => {
      const user = await createCustomer(app, tenant, { time_zone: 'UTC' });
      const res = await send(tenant, user.id, { purchase: { sku: 'coffee' } }, '2026-03-02T10:00:00Z');

      expect(res.body).toMatchObject({ status: 'ok', qualified: true, state: 'qualified', available_points: 15, user: { available_points: 15 } });
      expect(res.body.deltas).toEqual({ [buyer]: { current_count: 0, achieved: 1, reset: true }, [bonusHunter]: { current_count: 0, achieved: 1, reset: true } });
      expect(behaviorOf(res, buyer).achieved).toBe(1);
      expect(behaviorOf(res, bonusHunter).achieved).toBe(1);

      const explanation = res.body.explanation as EventExplanation[];
      const raised = explanation.filter((e) => e.event === 'bonus');
      expect(raised).toHaveLength(1);
      expect(raised[0]).toMatchObject({ event_index: 0, depth: 1 });
      expect(raised[0].campaigns.flatMap((c) => c.behaviors).map((b) => [b.behavior_name, b.verdict])).toEqual([[bonusHunter, 'completed']]);
      expect(explanationOf(res, buyer).detail).toContain('raised event "bonus" (depth 1)');

      expect(await getUser(tenant, user.id)).toEqual({ available_points: 15, lifetime_points: 15 });
      const retrieved = await retrieval(tenant, user.id);
      expect([retrieved.behaviors[buyer].achieved, retrieved.behaviors[bonusHunter].achieved]).toEqual([1, 1]);

      // One submitted event, one timeline entry, carrying everything it earned (raised events included).
      const timeline = await api(app, tenant).get(`/users/${user.id}/timeline`).expect(200);
      expect(timeline.body.total).toBe(1);
      expect(timeline.body.events).toEqual([expect.objectContaining({ name: 'purchase', status: 'processed', points_earned: 15 })]);
    });
  });

  describe('the timeline', () => {
    let tenant: TestTenant;

    beforeAll(async () => {
      const s = await setup();
      tenant = s.tenant;
      await createBehaviors(tenant, s.campaignId, [
        {
          name: uniqueName('Visit twice'),
          points: 10,
          data: { max_times_achievable: 2 },
          goal_groups: [{ goals: [{ achievement: { name: 'visit' } }] }],
        },
      ]);
    });

    it('lists each event with its status and points earned, newest first', async () => {
      const user = await createCustomer(app, tenant, { time_zone: 'UTC' });
      // Submitted out of time order: the third submission is the cap's victim although it happened second.
      await send(tenant, user.id, { visit: 1 }, '2026-03-02T09:00:00Z');
      await send(tenant, user.id, { visit: 1 }, '2026-03-04T09:00:00Z');
      const capped = await send(tenant, user.id, { visit: 1 }, '2026-03-03T09:00:00Z');
      expect(capped.body.state).toBe('reached_frequency_cap');

      const res = await api(app, tenant).get(`/users/${user.id}/timeline`).expect(200);
      expect(res.body).toMatchObject({ status: 'ok', page: 1, limit: 10, total: 3 });
      const entries = (res.body.events as TimelineEntry[]).map(({ name, occurred_at, status, reason, points_earned }) => ({ name, occurred_at, status, reason, points_earned }));
      expect(entries).toEqual([
        { name: 'visit', occurred_at: '2026-03-04T09:00:00.000Z', status: 'processed', reason: null, points_earned: 10 },
        { name: 'visit', occurred_at: '2026-03-03T09:00:00.000Z', status: 'processed', reason: 'reached_frequency_cap', points_earned: 0 },
        { name: 'visit', occurred_at: '2026-03-02T09:00:00.000Z', status: 'processed', reason: null, points_earned: 10 },
      ]);

      // Pages keep the order.
      const page1 = await api(app, tenant).get(`/users/${user.id}/timeline?limit=2&page=1`).expect(200);
      const page2 = await api(app, tenant).get(`/users/${user.id}/timeline?limit=2&page=2`).expect(200);
      expect([...page1.body.events, ...page2.body.events].map((e: TimelineEntry) => e.occurred_at)).toEqual(entries.map((e) => e.occurred_at));
      expect(await getUser(tenant, user.id)).toEqual({ available_points: 20, lifetime_points: 20 });
    });
  });
});
