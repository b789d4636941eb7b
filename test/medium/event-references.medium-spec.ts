import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import type { Tenant } from '../../src/common/http/request-context.js';
import { NotificationsService } from '../../src/modules/customers-state/notifications.service.js';
import { createMediumContext, type MediumContext } from './support/module.js';
import { seedCampaign, seedCustomer, seedTenant, type SeededCustomer } from './support/seed.js';

const OTHERS = 20_000;

/**
 * The rows an event produced, read by the event (migration 1764900000000): the timeline's notifications of a page of
 * events cost the same whatever the organization's history. Measured in PostgreSQL's shared buffers per statement
 * (EXPLAIN ANALYZE, BUFFERS), which depend on the data read, not on the machine's speed.
 */
describe('What an event produced, read by the event', () => {
  let ctx: MediumContext;
  let tenant: Tenant;
  let behaviorId: number;
  let campaignId: number;
  let customer: SeededCustomer;
  const statements: Array<{ text: string; values: unknown[] }> = [];

  /** The service on a data source that also records what it sends. */
  function recordingService(): NotificationsService {
    const db = {
      query: (text: string, values: unknown[]) => {
        statements.push({ text, values });
        return ctx.db.query(text, values);
      },
    };
    return new NotificationsService(db as unknown as DataSource);
  }

  /** Shared buffers (hit + read) the statement's plan read of `table`, when run. */
  async function buffers(statement: { text: string; values: unknown[] }, table: string): Promise<number> {
    const [row] = await ctx.db.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement.text}`, statement.values);
    type Node = Record<string, number | string> & { Plans?: Node[] };
    const own = (node: Node): number =>
      node['Relation Name'] === table || String(node['Index Name'] ?? '').startsWith(`${table}_`)
        ? Number(node['Shared Hit Blocks']) + Number(node['Shared Read Blocks'])
        : (node.Plans ?? []).reduce((sum, child) => sum + own(child), 0);
    return own(row['QUERY PLAN'][0].Plan);
  }

  /** Notifications of the customer's events `ids` (creatives are not read here: their key is not checked in this load). */
  async function notify(customerId: string, eventIds: string, perEvent = 1): Promise<void> {
    const runner = ctx.db.createQueryRunner();
    try {
      await runner.startTransaction();
      await runner.query(`SET LOCAL session_replication_role = replica`);
      await runner.query(
        `INSERT INTO notifications (organization_id, customer_id, event_id, creative_id, campaign_id, behavior_id, type, data)
         SELECT $1, $2, e, 0, $3, $4, 'message', jsonb_build_object('message', 'event ' || e || ' #' || k)
           FROM ${eventIds} AS e, generate_series(1, $5::int) AS k`,
        [tenant.organizationId, customerId, campaignId, behaviorId, perEvent],
      );
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
  }

  beforeAll(async () => {
    ctx = await createMediumContext();
    tenant = await seedTenant(ctx.db);
    ({ campaignId, behaviorIds: [behaviorId] } = await seedCampaign(ctx.db, tenant, [{ event: 'visit', points: 1 }]));
    customer = await seedCustomer(ctx.db, tenant);
    const other = await seedCustomer(ctx.db, tenant);
    // The customer's events 1-10 each produced two notifications; another customer's 20,000 events one each.
    await notify(customer.id, 'generate_series(1, 10)', 2);
    await notify(other.id, `generate_series(1000, ${999 + OTHERS})`);
    await ctx.db.query('ANALYZE notifications');
  });

  afterAll(() => ctx.close());

  it("finds a page of the customer's events' notifications, in the order they were produced", async () => {
    const byEvent = await recordingService().ofEvents(tenant.organizationId, customer.id, ['3', '4', '1000']);
    expect([...byEvent.keys()].sort()).toEqual(['3', '4']);
    expect(byEvent.get('3')!.map((n) => n.data)).toEqual([{ message: 'event 3 #1' }, { message: 'event 3 #2' }]);
  });

  it("reads a few pages, not the organization's notifications", async () => {
    expect(Number((await ctx.db.query(`SELECT count(*) AS n FROM notifications WHERE organization_id = $1`, [tenant.organizationId]))[0].n)).toBe(OTHERS + 20);
    statements.length = 0;
    await recordingService().ofEvents(tenant.organizationId, customer.id, ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    expect(statements).toHaveLength(1);
    // The organization's 20,020 notifications fill about 250 pages; one page of events reads a handful.
    expect(await buffers(statements[0], 'notifications')).toBeGreaterThan(0);
    expect(await buffers(statements[0], 'notifications')).toBeLessThan(20);
  });
});
