import { DataSource } from 'typeorm';
import { inChunks, sendEvent, startProcess as listening, statuses, type Json, type Process } from './support/listening-app.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { behaviorBody, BehaviorSpec, createBehavior } from './factories/behavior.factory.js';

/**
 * Issue #13: the synchronous V1 event path under bursts, with a small database pool (5 connections per process) so
 * that a request which holds a connection and needs another one (to compile the rules of a new version, say), or many
 * requests waiting on one customer's row lock, would starve the pool. What is checked is what a user sees: every
 * request answers 200, and every customer's balance, ledger and stored events are exact.
 *
 * Each app listens on a real port and the bursts are sent with fetch over separate connections, so the requests are
 * in the server together. Every test has its own organization, so its rules are cold until its first event.
 */

const POOL_SIZE = 5;
const POINTS = 10;
const BURST_TIMEOUT = 60_000;

type Customer = { id: string };

/** A test app with a pool of POOL_SIZE connections, listening on a port of its own. */
const startProcess = (): Promise<Process> => listening({ databasePoolSize: POOL_SIZE });

interface CustomerState {
  available_points: number;
  lifetime_points: number;
  ledger_rows: number;
  ledger_sum: number;
  events_stored: number;
}

describe('event path under bursts (issue #13)', () => {
  let main: Process;
  let second: Process;
  let db: DataSource;
  let seq = 0;

  beforeAll(async () => {
    main = await startProcess();
    second = await startProcess();
    db = main.app.get(DataSource);
  }, BURST_TIMEOUT);
  afterAll(() => Promise.all([main?.app.close(), second?.app.close()]));

  const customers = (tenant: TestTenant, n: number): Promise<Customer[]> =>
    inChunks(
      Array.from({ length: n }, () => null),
      10,
      () => createCustomer(main.app, tenant),
    );

  /** A live campaign and, through the management route (which bumps the rules version), one behavior on `visit`. */
  async function visitBehavior(tenant: TestTenant, points = POINTS): Promise<{ id: number; spec: BehaviorSpec }> {
    const campaign = await createCampaign(main.app, tenant);
    seq += 1;
    const spec: BehaviorSpec = { name: `Every visit ${seq}-${Date.now().toString(36)}`, event: 'visit', points };
    const behavior = await createBehavior(main.app, tenant, campaign.id, spec);
    return { id: behavior.id, spec };
  }

  /** What a user checks of each customer: the balances (GET the customer), the ledger, and the stored events (timeline). */
  async function states(tenant: TestTenant, list: Customer[]): Promise<CustomerState[]> {
    const ledger = (await db.query(
      `SELECT customer_id::text AS id, count(*)::int AS rows, coalesce(sum(amount), 0)::int AS sum
         FROM points_ledger WHERE customer_id = ANY($1::uuid[]) GROUP BY customer_id`,
      [list.map((c) => c.id)],
    )) as Array<{ id: string; rows: number; sum: number }>;
    const byId = new Map(ledger.map((r) => [r.id, r]));
    return inChunks(list, 10, async (c) => {
      const user = await api(main.app, tenant).get(`/users/${c.id}`).expect(200);
      const timeline = await api(main.app, tenant).get(`/users/${c.id}/timeline?limit=100`).expect(200);
      return {
        available_points: user.body.user.available_points as number,
        lifetime_points: user.body.user.lifetime_points as number,
        ledger_rows: byId.get(c.id)?.rows ?? 0,
        ledger_sum: byId.get(c.id)?.sum ?? 0,
        events_stored: timeline.body.total as number,
      };
    });
  }

  /** How many customers are in each state, e.g. {"available=10 lifetime=10 ledger=1/10 events=1": 100}. */
  function stateCounts(list: CustomerState[]): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const s of list) {
      const key = `available=${s.available_points} lifetime=${s.lifetime_points} ledger=${s.ledger_rows}/${s.ledger_sum} events=${s.events_stored}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  }

  const exact = (events: number, points: number) => `available=${points} lifetime=${points} ledger=${events}/${points} events=${events}`;

  describe('cold cache: 100 parallel events for 100 customers right after a behavior is created', () => {
    it(
      'one process: all 100 answer 200 and each customer is credited exactly once',
      async () => {
        const tenant = await createTenant(main.app, { time_zone: 'UTC' });
        const list = await customers(tenant, 100);
        await visitBehavior(tenant);

        const answers = await Promise.all(list.map((c) => sendEvent(main, tenant, c.id)));

        expect(answers).toHaveLength(100);
        expect(statuses(answers)).toEqual({ counts: { 200: 100 }, firstFailure: undefined });
        for (const a of answers) expect(a.body).toMatchObject({ status: 'ok', available_points: POINTS });
        expect(stateCounts(await states(tenant, list))).toEqual({ [exact(1, POINTS)]: 100 });
      },
      BURST_TIMEOUT,
    );

    it(
      'two processes on one database, both compiling at once: all 100 answer 200 and each customer is credited exactly once',
      async () => {
        const tenant = await createTenant(main.app, { time_zone: 'UTC' });
        const list = await customers(tenant, 100);
        await visitBehavior(tenant);

        // Alternately to each process: both see the new rules version on their first event and compile together.
        const answers = await Promise.all(list.map((c, i) => sendEvent(i % 2 === 0 ? main : second, tenant, c.id)));

        expect(answers).toHaveLength(100);
        expect({ main: statuses(answers.filter((_, i) => i % 2 === 0)), second: statuses(answers.filter((_, i) => i % 2 === 1)) }).toEqual({
          main: { counts: { 200: 50 }, firstFailure: undefined },
          second: { counts: { 200: 50 }, firstFailure: undefined },
        });
        for (const a of answers) expect(a.body).toMatchObject({ status: 'ok', available_points: POINTS });
        expect(stateCounts(await states(tenant, list))).toEqual({ [exact(1, POINTS)]: 100 });
      },
      BURST_TIMEOUT,
    );
  });

  it(
    'hot customer: 50 parallel events for one customer with 20 for 20 others: no 5xx, others all 200, exact totals',
    async () => {
      const tenant = await createTenant(main.app, { time_zone: 'UTC' });
      const [hot, warmup, ...others] = await customers(tenant, 22);
      await visitBehavior(tenant);
      // Warm the rules first, so this test is about the customer's row lock and not about compiling.
      expect((await sendEvent(main, tenant, warmup.id)).status).toBe(200);

      // Interleaved: two other customers' requests among every five of the hot customer's.
      const plan: Array<{ customer: Customer; hot: boolean }> = [];
      for (let i = 0; i < 50; i += 1) {
        plan.push({ customer: hot, hot: true });
        if (i % 5 === 0 || i % 5 === 2) plan.push({ customer: others[plan.filter((p) => !p.hot).length], hot: false });
      }
      expect([plan.filter((p) => p.hot).length, plan.filter((p) => !p.hot).length]).toEqual([50, 20]);

      const answers = await Promise.all(plan.map((p) => sendEvent(main, tenant, p.customer.id)));

      // Every request completed (Promise.all settled within the test's timeout), and none with a server error.
      expect(answers).toHaveLength(70);
      expect(answers.filter((a) => a.status === 0 || a.status >= 500)).toEqual([]);
      const hotAnswers = answers.filter((_, i) => plan[i].hot);
      const otherAnswers = answers.filter((_, i) => !plan[i].hot);
      expect({ hot: statuses(hotAnswers), others: statuses(otherAnswers) }).toEqual({
        hot: { counts: { 200: 50 }, firstFailure: undefined },
        others: { counts: { 200: 20 }, firstFailure: undefined },
      });
      // Serialized on the hot customer: each request saw every earlier one's points.
      expect(hotAnswers.map((a) => a.body.available_points as number).sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => POINTS * (i + 1)));

      expect(stateCounts(await states(tenant, [hot]))).toEqual({ [exact(50, 50 * POINTS)]: 1 });
      expect(stateCounts(await states(tenant, others))).toEqual({ [exact(1, POINTS)]: 20 });
    },
    BURST_TIMEOUT,
  );

  it(
    'rules changing mid-burst: every request answers 200 and each customer is credited under one version or the other',
    async () => {
      const tenant = await createTenant(main.app, { time_zone: 'UTC' });
      const [warmup, ...list] = await customers(tenant, 101);
      const behavior = await visitBehavior(tenant, POINTS);
      expect((await sendEvent(main, tenant, warmup.id)).status).toBe(200);
      const CHANGED = 2 * POINTS;

      // The behavior's points change while the events are in flight: the update is sent after the first 50 events
      // and before the other 50, all at once.
      const sent = list.slice(0, 50).map((c) => sendEvent(main, tenant, c.id));
      const change = api(main.app, tenant)
        .put(`/management/behaviors/${behavior.id}`)
        .send({ behavior: behaviorBody({ ...behavior.spec, points: CHANGED }) })
        .then((res) => ({ status: res.status, body: res.body as Json }));
      sent.push(...list.slice(50).map((c) => sendEvent(main, tenant, c.id)));
      const [answers, changed] = await Promise.all([Promise.all(sent), change]);

      expect(answers).toHaveLength(100);
      expect(changed.status).toBe(200);
      expect(statuses(answers)).toEqual({ counts: { 200: 100 }, firstFailure: undefined });

      // One version or the other for each customer: one event, one ledger row, a balance equal to the ledger sum and
      // to what its answer said.
      const after = await states(tenant, list);
      for (const [i, s] of after.entries()) {
        expect({ customer: i, state: s }).toEqual({
          customer: i,
          state: {
            available_points: s.ledger_sum,
            lifetime_points: s.ledger_sum,
            ledger_rows: 1,
            ledger_sum: s.ledger_sum,
            events_stored: 1,
          },
        });
        expect({ customer: i, credited: [POINTS, CHANGED].includes(s.ledger_sum) ? 'one version' : s.ledger_sum }).toEqual({ customer: i, credited: 'one version' });
        expect({ customer: i, answered: answers[i].body.available_points }).toEqual({ customer: i, answered: s.available_points });
      }

      // And the change is in force for the next event.
      const late = await customers(tenant, 1);
      const next = await sendEvent(main, tenant, late[0].id);
      expect({ status: next.status, available_points: next.body.available_points }).toEqual({ status: 200, available_points: CHANGED });
    },
    BURST_TIMEOUT,
  );
});
