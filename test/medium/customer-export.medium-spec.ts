import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CustomerExportRepository, EXPORT_BATCH } from '../../src/modules/data-rights/customer-export.repository.js';
import { createMediumContext, type MediumContext } from './support/module.js';
import { seedCustomer, seedTenant } from './support/seed.js';

const NOW = Date.UTC(2026, 10, 20, 12);

/**
 * The export's reads (contract §21) on the real database: a list longer than a batch comes out whole, each item once,
 * newest first, also when many items share a time (the batches resume after the last one's time and id), and with
 * timestamps to the microsecond (the keys go back to PostgreSQL as text, never rounded to JavaScript's milliseconds).
 */
describe('the export lists on the real database', () => {
  let ctx: MediumContext;
  let lists: CustomerExportRepository;

  beforeAll(async () => {
    ctx = await createMediumContext({}, NOW);
    lists = new CustomerExportRepository(ctx.db);
  });
  afterAll(() => ctx.close());

  const all = async (customerId: string) => {
    const batches: string[] = [];
    for await (const batch of lists.batches('events', customerId)) batches.push(batch);
    return { batches: batches.length, items: JSON.parse(`[${batches.join(',')}]`) as Array<{ id: string; occurred_at: string }> };
  };

  it('answers every event once, newest first, across batches, ties in time and microseconds', async () => {
    const tenant = await seedTenant(ctx.db);
    const customer = await seedCustomer(ctx.db, tenant);
    const neighbour = await seedCustomer(ctx.db, tenant);
    const events = 2 * EXPORT_BATCH + 7;
    // Ten events per microsecond-precise instant, a millisecond and a microsecond apart from the next.
    await ctx.db.query(
      `INSERT INTO events (organization_id, api_key_id, customer_id, user_ref, source, name, count, attributes, occurred_at, status)
       SELECT $1, $2, c, 'x', 'v1', 'visit', 1, jsonb_build_object('n', g), $4::timestamptz - (g / 10) * interval '1001 microseconds', 'processed'
         FROM generate_series(0, $5 - 1) g, unnest($3::uuid[]) c`,
      [tenant.organizationId, tenant.apiKeyId, [customer.id, neighbour.id], new Date(NOW).toISOString(), events],
    );
    const { batches, items } = await all(customer.id);
    expect(batches).toBe(3);
    expect(items).toHaveLength(events);
    expect(new Set(items.map((e) => e.id)).size).toBe(events);
    const stored = await ctx.db.query(`SELECT e.id::text AS event_id FROM events e WHERE e.customer_id = $1 ORDER BY e.occurred_at DESC, e.id DESC`, [customer.id]);
    expect(items.map((e) => e.id)).toEqual(stored.map((r: { event_id: string }) => r.event_id));
  });

  it('answers an empty list for a customer without events', async () => {
    const tenant = await seedTenant(ctx.db);
    const customer = await seedCustomer(ctx.db, tenant);
    expect(await all(customer.id)).toEqual({ batches: 0, items: [] });
  });
});
