import type { INestApplication } from '@nestjs/common';
import pg from 'pg';
import { loadConfig } from '../../../src/config/config.js';
import { waitFor } from '../../support/worker.js';
import { createBehavior } from '../../factories/behavior.factory.js';
import { createCampaign } from '../../factories/campaign.factory.js';
import { createCustomer } from '../../factories/customer.factory.js';
import { api, createTenant, TestTenant } from '../../factories/tenant.factory.js';

export type Customer = { id: string; external_id: string };

/**
 * Helpers the fault specs share: a loyalty tenant whose `visit` earns 10 points and every third `visit` 7 more, and
 * the books a user checks afterwards (balances, the points ledger, the events).
 */
export async function loyaltyTenant(app: INestApplication, customerCount: number): Promise<{ tenant: TestTenant; customers: Customer[] }> {
  const tenant = await createTenant(app);
  const campaign = await createCampaign(app, tenant);
  await createBehavior(app, tenant, campaign.id, { name: 'Visit', event: 'visit', event_count: 1, points: 10 });
  await createBehavior(app, tenant, campaign.id, { name: 'Three visits', event: 'visit', event_count: 3, points: 7 });
  const customers: Customer[] = [];
  for (let i = 0; i < customerCount; i += 1) customers.push(await createCustomer(app, tenant));
  return { tenant, customers };
}

/**
 * A pool of the test's own on this run's database, for reading the books: not the service's pool, and under an
 * application_name of its own, so killing the service's connections never touches it.
 */
export function checkerPool(): pg.Pool {
  return new pg.Pool({ connectionString: loadConfig(process.env).databaseUrl, application_name: 'fault-spec-checks', max: 2 });
}

/** Waits (bounded) until no event of the organization is pending; answers its events by status. */
export async function settled(db: pg.Pool, tenant: TestTenant, timeoutMs: number): Promise<Record<string, number>> {
  let counts: Record<string, number> = {};
  await waitFor(
    async () => {
      const { rows } = await db.query(`SELECT status, count(*)::int AS n FROM events WHERE organization_id = $1 GROUP BY status`, [tenant.organizationId]);
      counts = Object.fromEntries(rows.map((r: { status: string; n: number }) => [r.status, r.n]));
      return !counts.pending;
    },
    timeoutMs,
    `no pending event in organization ${tenant.organizationId}`,
    250,
  );
  return counts;
}

export interface Books {
  available: number;
  lifetime: number;
  ledgerSum: number;
  events: number;
  processed: number;
  earned: number;
}

/** What `visits` accepted visits are worth, each processed exactly once. */
export function expectedBooks(visits: number): Books {
  const points = 10 * visits + 7 * Math.floor(visits / 3);
  return { available: points, lifetime: points, ledgerSum: points, events: visits, processed: visits, earned: points };
}

/**
 * Per customer (by external_id): the balances the API answers, the points ledger's sum, and the customer's events
 * (how many are stored, how many processed with a result, what they say they earned). A lost event, an event
 * processed twice or a partial write shows as a difference from `expectedBooks`.
 */
export async function books(app: INestApplication, db: pg.Pool, tenant: TestTenant, customers: Customer[]): Promise<Record<string, Books>> {
  const ids = customers.map((c) => c.id);
  const ledger = await db.query(`SELECT customer_id, sum(amount)::int AS sum FROM points_ledger WHERE customer_id = ANY($1) GROUP BY customer_id`, [ids]);
  const events = await db.query(
    `SELECT customer_id, count(*)::int AS events, sum(points_earned)::int AS earned,
            count(*) FILTER (WHERE status = 'processed' AND result IS NOT NULL AND processed_at IS NOT NULL)::int AS processed
       FROM events WHERE customer_id = ANY($1) GROUP BY customer_id`,
    [ids],
  );
  const out: Record<string, Books> = {};
  for (const c of customers) {
    const res = await api(app, tenant).get(`/users/${c.id}`).expect(200);
    const l = ledger.rows.find((r: { customer_id: string }) => r.customer_id === c.id);
    const e = events.rows.find((r: { customer_id: string }) => r.customer_id === c.id);
    out[c.external_id] = {
      available: res.body.user.available_points,
      lifetime: res.body.user.lifetime_points,
      ledgerSum: l?.sum ?? 0,
      events: e?.events ?? 0,
      processed: e?.processed ?? 0,
      earned: e?.earned ?? 0,
    };
  }
  return out;
}

/** The books every customer should show for the visits accepted for them. */
export function expectedFor(customers: Customer[], accepted: Map<string, number>): Record<string, Books> {
  return Object.fromEntries(customers.map((c) => [c.external_id, expectedBooks(accepted.get(c.id) ?? 0)]));
}

/** Events of the organization whose ledger credits differ from what the event says it earned (a second set, a lost one). */
export async function unbalancedEvents(db: pg.Pool, tenant: TestTenant): Promise<unknown[]> {
  const { rows } = await db.query(
    `SELECT e.id, e.points_earned AS earned, coalesce(sum(l.amount), 0)::int AS credited
       FROM events e LEFT JOIN points_ledger l ON l.event_id = e.id
      WHERE e.organization_id = $1 GROUP BY e.id, e.points_earned HAVING coalesce(sum(l.amount), 0) <> e.points_earned`,
    [tenant.organizationId],
  );
  return rows;
}
