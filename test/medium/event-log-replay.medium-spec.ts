import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import type { Tenant } from '../../src/common/http/request-context.js';
import { EventLogRepository, type ReplayEvent, type ReplayPage, type ReplayScope, type ReplayStream } from '../../src/modules/events/event-log/event-log.repository.js';
import { createMediumContext, type MediumContext } from './support/module.js';
import { seedCustomer, seedTenant, type SeededCustomer } from './support/seed.js';

/**
 * A simulation's read of the event log (contract §15), on the run's database: which stored events it replays (the
 * range inclusive at both ends, every status but rejected, no perform calls, the organization's and the named
 * customers' only), in which order, a page at a time, all from one snapshot.
 */
describe('Event log replay', () => {
  let context: MediumContext;
  let db: DataSource;
  let repository: EventLogRepository;
  let tenant: Tenant;
  let a: SeededCustomer;
  let b: SeededCustomer;
  const FROM = '2026-03-01T00:00:00.000Z';
  const TO = '2026-03-31T00:00:00.000Z';

  async function store(tenantOf: Tenant, customerId: string, name: string, occurredAt: string, status = 'processed', source = 'v2'): Promise<void> {
    await db.query(
      `INSERT INTO events (organization_id, api_key_id, customer_id, source, name, attributes, occurred_at, status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [tenantOf.organizationId, tenantOf.apiKeyId, customerId, source, name, { occurred_on: occurredAt.slice(0, 10) }, occurredAt, status],
    );
  }

  const scope = (over: Partial<ReplayScope> = {}): ReplayScope => ({
    organizationId: tenant.organizationId,
    from: new Date(FROM),
    to: new Date(TO),
    customerIds: null,
    order: 'customer',
    ...over,
  });

  async function drain(stream: ReplayStream): Promise<ReplayPage[]> {
    const pages: ReplayPage[] = [];
    try {
      for (let page = await stream.next(); page !== null; page = await stream.next()) pages.push(page);
    } finally {
      await stream.close();
    }
    return pages;
  }

  const summary = (events: ReplayEvent[]) => events.map((e) => `${e.customerId === a.id ? 'a' : 'b'}:${e.instance.name}@${new Date(e.instance.occurredAt).toISOString()}`);

  beforeAll(async () => {
    context = await createMediumContext();
    db = context.db;
    repository = new EventLogRepository(db);
    tenant = await seedTenant(db);
    const [first, second] = [await seedCustomer(db, tenant), await seedCustomer(db, tenant)];
    [a, b] = first.id < second.id ? [first, second] : [second, first];
    await store(tenant, b.id, 'visit', '2026-03-05T10:00:00.000Z');
    await store(tenant, a.id, 'purchase', '2026-03-10T10:00:00.000Z');
    await store(tenant, a.id, 'visit', FROM); // at the range's start: in
    await store(tenant, b.id, 'checkin', TO, 'pending'); // at its end, not processed yet: in
    await store(tenant, a.id, 'checkin', '2026-03-10T10:00:00.000Z', 'stored'); // a tie on occurred_at: after the purchase, by id
    await store(tenant, a.id, 'visit', '2026-03-12T10:00:00.000Z', 'rejected'); // rejected: out
    await store(tenant, a.id, 'complete_campaign', '2026-03-12T11:00:00.000Z', 'processed', 'perform'); // a perform call: out
    await store(tenant, a.id, 'visit', '2026-02-28T23:59:59.999Z'); // before the range: out
    await store(tenant, b.id, 'visit', '2026-03-31T00:00:00.001Z'); // after it: out
    const other = await seedTenant(db);
    await store(other, (await seedCustomer(db, other)).id, 'visit', '2026-03-15T10:00:00.000Z'); // another organization's: out
  });

  afterAll(async () => {
    await context?.close();
  });

  it("replays one customer's events after another's (customers by id), each in occurred_at order, ties by id", async () => {
    const pages = await drain(await repository.replay(scope(), 100));
    const events = pages.flatMap((p) => p.events);
    expect(summary(events)).toEqual([
      'a:visit@2026-03-01T00:00:00.000Z',
      'a:purchase@2026-03-10T10:00:00.000Z',
      'a:checkin@2026-03-10T10:00:00.000Z',
      'b:visit@2026-03-05T10:00:00.000Z',
      'b:checkin@2026-03-31T00:00:00.000Z',
    ]);
    // As an evaluation reads a stored event: occurred_on is the day the request named.
    expect(events[0].instance).toEqual(expect.objectContaining({ count: 1, day: '2026-03-01', attributes: { occurred_on: '2026-03-01' }, context: {} }));
  });

  it('replays every event by time when asked (customers mixed), a page of the given size at a time', async () => {
    const pages = await drain(await repository.replay(scope({ order: 'time' }), 2));
    expect(pages.map((p) => p.events.length)).toEqual([2, 2, 1]);
    expect(summary(pages.flatMap((p) => p.events))).toEqual([
      'a:visit@2026-03-01T00:00:00.000Z',
      'b:visit@2026-03-05T10:00:00.000Z',
      'a:purchase@2026-03-10T10:00:00.000Z',
      'a:checkin@2026-03-10T10:00:00.000Z',
      'b:checkin@2026-03-31T00:00:00.000Z',
    ]);
  });

  it('replays only the named customers', async () => {
    expect(summary((await drain(await repository.replay(scope({ customerIds: [b.id] }), 100))).flatMap((p) => p.events))).toEqual([
      'b:visit@2026-03-05T10:00:00.000Z',
      'b:checkin@2026-03-31T00:00:00.000Z',
    ]);
  });

  it('gives each customer\'s profile with the page of its first event: a customer per row in customer order', async () => {
    const byCustomer = await drain(await repository.replay(scope(), 1));
    expect(byCustomer.map((p) => [p.customers.map((c) => c.id), p.events.length])).toEqual([
      [[a.id], 3],
      [[b.id], 2],
    ]);
    const byTime = await drain(await repository.replay(scope({ order: 'time' }), 2));
    expect(byTime.map((p) => p.customers.map((c) => c.id).sort())).toEqual([[a.id, b.id], [], []]);
    expect(byTime[0].customers.find((c) => c.id === a.id)).toEqual(expect.objectContaining({ availablePoints: 0, lifetimePoints: 0, tags: [] }));
  });

  it('reads every page, and the profiles, in the snapshot it started with', async () => {
    const stream = await repository.replay(scope({ order: 'time' }), 1);
    try {
      const first = await stream.next();
      expect(first?.customers.map((c) => c.id)).toEqual([a.id]);
      // Written after the replay began: neither the event nor the profile's change is seen.
      await store(tenant, a.id, 'visit', '2026-03-20T10:00:00.000Z');
      await db.query(`UPDATE customers SET available_points = 500 WHERE id = $1`, [b.id]);
      const rest: ReplayPage[] = [];
      for (let page = await stream.next(); page !== null; page = await stream.next()) rest.push(page);
      expect(rest.flatMap((p) => p.events)).toHaveLength(4);
      expect(rest.flatMap((p) => p.customers)).toEqual([expect.objectContaining({ id: b.id, availablePoints: 0 })]);
    } finally {
      await stream.close();
    }
  });
});
