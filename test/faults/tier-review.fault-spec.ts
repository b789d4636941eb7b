import { jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createTestApp } from '../support/app.js';
import { useOwnDatabase } from '../support/database.js';
import { deleteQueueKeys, killWorker, ownQueuePrefix, spawnWorker, waitFor, type WorkerProcess } from '../support/worker.js';
import { api, createTenant, type TestTenant } from '../factories/tenant.factory.js';

/** Bounds on waiting, never expectations of speed. */
const SETTLE_MS = 120_000;
jest.setTimeout(4 * SETTLE_MS);

/** Enough due reviews that, paced, the sweep runs for several seconds: long enough to be killed in the middle. */
const CUSTOMERS = 5_000;

/**
 * Contract §17's reviews when a worker dies: a worker killed in the middle of a month end's reviews leaves the batch
 * it was writing to the next sweep (another worker's), and every customer is reviewed once: one history row and one
 * `tier.changed` delivery each, the tier the policy gives. Real worker processes (`node dist/src/worker.js`).
 */
describe('tier reviews when the worker dies', () => {
  const prefix = ownQueuePrefix('tier-review-faults');
  const children: WorkerProcess[] = [];
  let app: INestApplication;
  let db: DataSource;
  let tenant: TestTenant;
  const tiers: Record<string, number> = {};

  beforeAll(async () => {
    await useOwnDatabase('tier-review-faults');
    app = await createTestApp({ queuePrefix: prefix });
    db = app.get(DataSource);
    tenant = await createTenant(app, { tier_policy: { basis: 'period', period_months: 1, downgrade: 'one_level' } });
    for (const [name, min_points, retain_points] of [['Silver', 100, 50], ['Gold', 500, 300]] as const) {
      tiers[name] = (await api(app, tenant).post('/management/tiers').send({ tier: { name, min_points, retain_points } }).expect(201)).body.tier.id;
    }
    await api(app, tenant).post('/management/webhooks').send({ webhook: { url: 'https://hooks.example.com/tiers', event_types: ['tier.changed'] } }).expect(201);
    // Gold earned two months ago (500 points), kept at last month's start, not kept at this month's (no point last
    // month): every customer's review is due, and gives Silver. Written with SQL, as the service leaves it.
    await db.query(
      `INSERT INTO customers (organization_id, external_id, time_zone, division_id, tier_id, tier_review_at, lifetime_points, available_points)
       SELECT $1, 'tiered-' || g, 'UTC', $2, $3, date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 month', 500, 500
         FROM generate_series(1, $4) g`,
      [tenant.organizationId, tenant.rootDivisionId, tiers.Gold, CUSTOMERS],
    );
    await db.query(
      `INSERT INTO points_ledger (organization_id, customer_id, amount, reason, source, occurred_at)
       SELECT $1, id, 500, 'behavior', '{}', date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '2 months' + interval '14 days'
         FROM customers WHERE organization_id = $1`,
      [tenant.organizationId],
    );
  }, 4 * SETTLE_MS);

  afterAll(async () => {
    for (const child of children) await killWorker(child);
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  const count = async (sql: string) => Number((await db.query(sql, [tenant.organizationId]))[0].n);
  const reviewed = () => count(`SELECT count(*) AS n FROM tier_history h JOIN customers c ON c.id = h.customer_id WHERE c.organization_id = $1`);

  it('reviews every customer once, with one webhook each, across a worker killed mid-review', async () => {
    // Paced to 500 a second, the 5,000 reviews take about ten seconds: the first worker dies after the first batches.
    const first = spawnWorker({ QUEUE_PREFIX: prefix, TIER_REVIEW_RATE: '500' });
    children.push(first);
    await waitFor(async () => (await reviewed()) >= 1_000, SETTLE_MS, 'the first batches of reviews');
    await killWorker(first);
    const atKill = await reviewed();
    expect(atKill).toBeLessThan(CUSTOMERS);

    children.push(spawnWorker({ QUEUE_PREFIX: prefix }));
    await waitFor(
      async () => (await count(`SELECT count(*) AS n FROM customers WHERE organization_id = $1 AND tier_review_at <= now()`)) === 0,
      SETTLE_MS,
      'every due review applied',
    );

    expect(await count(`SELECT count(*) AS n FROM customers WHERE organization_id = $1 AND tier_id = ${tiers.Silver}`)).toBe(CUSTOMERS);
    // One history row and one delivery per customer: none twice, none missing.
    const perCustomer = await db.query(
      `SELECT c.id, coalesce(h.n, 0) AS history, coalesce(d.n, 0) AS deliveries
         FROM customers c
         LEFT JOIN (SELECT customer_id, count(*)::int AS n FROM tier_history WHERE reason = 'review' AND to_tier_id = $2 GROUP BY customer_id) h ON h.customer_id = c.id
         LEFT JOIN (SELECT (payload->'data'->>'user_id')::uuid AS customer_id, count(*)::int AS n FROM webhook_deliveries
                     WHERE organization_id = $1 AND type = 'tier.changed' GROUP BY 1) d ON d.customer_id = c.id
        WHERE c.organization_id = $1`,
      [tenant.organizationId, tiers.Silver],
    );
    expect(perCustomer).toHaveLength(CUSTOMERS);
    expect(perCustomer.filter((r: { history: number; deliveries: number }) => r.history !== 1 || r.deliveries !== 1)).toEqual([]);
    const sample = await db.query(`SELECT payload FROM webhook_deliveries WHERE organization_id = $1 AND type = 'tier.changed' LIMIT 1`, [tenant.organizationId]);
    expect(sample[0].payload.data).toEqual(
      expect.objectContaining({ from_tier: { id: tiers.Gold, name: 'Gold' }, to_tier: { id: tiers.Silver, name: 'Silver' }, direction: 'down', reason: 'review' }),
    );
    // Next month's review is queued for each of them.
    expect(await count(`SELECT count(*) AS n FROM customers WHERE organization_id = $1 AND tier_review_at > now()`)).toBe(CUSTOMERS);
  });
});
