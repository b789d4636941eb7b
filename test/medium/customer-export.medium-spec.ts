import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CustomerExportRepository } from '../../src/modules/data-rights/customer-export.repository.js';
import { createMediumContext, type MediumContext } from './support/module.js';
import { seedCustomer, seedTenant } from './support/seed.js';

const NOW = Date.UTC(2026, 10, 20, 12);

/**
 * The export's lists (contract §21) on the real database, as PostgreSQL streams them: a long list comes out whole,
 * each item once, newest first (ties in time by id), and values holding what a text stream could mangle (line
 * breaks, quotes, backslashes, control characters, non-ASCII) come back exactly as stored.
 */
describe('the export lists on the real database', () => {
  let ctx: MediumContext;
  let lists: CustomerExportRepository;

  beforeAll(async () => {
    ctx = await createMediumContext({}, NOW);
    lists = new CustomerExportRepository(ctx.db);
  });
  afterAll(() => ctx.close());

  const events = async (customerId: string) => {
    const chunks: Buffer[] = [];
    await lists.session((copy) => copy('events', customerId, async (chunk) => void chunks.push(chunk)));
    return JSON.parse(`[${Buffer.concat(chunks).toString('utf8')}]`) as Array<{ id: string; attributes: Record<string, unknown> }>;
  };

  it('answers every event once, newest first, ties in time by id', async () => {
    const tenant = await seedTenant(ctx.db);
    const customer = await seedCustomer(ctx.db, tenant);
    const neighbour = await seedCustomer(ctx.db, tenant);
    const count = 2_507;
    // Ten events per instant, a millisecond and a microsecond apart from the next ten.
    await ctx.db.query(
      `INSERT INTO events (organization_id, api_key_id, customer_id, user_ref, source, name, count, attributes, occurred_at, status)
       SELECT $1, $2, c, 'x', 'v1', 'visit', 1, jsonb_build_object('n', g), $4::timestamptz - (g / 10) * interval '1001 microseconds', 'processed'
         FROM generate_series(0, $5 - 1) g, unnest($3::uuid[]) c`,
      [tenant.organizationId, tenant.apiKeyId, [customer.id, neighbour.id], new Date(NOW).toISOString(), count],
    );
    const items = await events(customer.id);
    const stored = await ctx.db.query(`SELECT e.id::text AS event_id FROM events e WHERE e.customer_id = $1 ORDER BY e.occurred_at DESC, e.id DESC`, [customer.id]);
    expect(items.map((e) => e.id)).toEqual(stored.map((r: { event_id: string }) => r.event_id));
    expect(new Set(items.map((e) => e.id)).size).toBe(count);
  });

  it('gives back values with line breaks, quotes, backslashes, control characters and non-ASCII exactly', async () => {
    const tenant = await seedTenant(ctx.db);
    const customer = await seedCustomer(ctx.db, tenant);
    const attributes = { note: 'two\nlines, "quoted" \\ back\\slash\r\n\t\u0001\u0002 end', name: 'Zoë 東京 🎉', empty: '' };
    await ctx.db.query(
      `INSERT INTO events (organization_id, api_key_id, customer_id, user_ref, source, name, count, attributes, occurred_at, status)
       VALUES ($1, $2, $3, 'x', 'v1', 'visit', 1, $4, now(), 'processed')`,
      [tenant.organizationId, tenant.apiKeyId, customer.id, JSON.stringify(attributes)],
    );
    expect((await events(customer.id)).map((e) => e.attributes)).toEqual([attributes]);
  });

  it('answers an empty list for a customer without events', async () => {
    const tenant = await seedTenant(ctx.db);
    const customer = await seedCustomer(ctx.db, tenant);
    expect(await events(customer.id)).toEqual([]);
  });
});
