import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource, type Logger } from 'typeorm';
import type { Tenant } from '../../src/common/http/request-context.js';
import { dataSourceOptions } from '../../src/database/data-source.js';
import { EventLogRepository } from '../../src/modules/events/event-log/event-log.repository.js';
import { EventPartitionsRepository, partitionName } from '../../src/modules/events/event-log/event-partitions.repository.js';
import { ownDatabase, type OwnDatabase } from './support/own-database.js';
import { seedCustomer, seedTenant, type SeededCustomer } from './support/seed.js';

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

const MONTHS = ['2026-02', '2026-03', '2026-04', '2026-05'];

/**
 * The event log read by transaction id and by a customer's time range (for reversals and simulations), on the
 * partitioned log: right answers across month boundaries, and only the months concerned read (the partitions the
 * executed plan scanned, from EXPLAIN ANALYZE). On a database of its own, whose months this spec creates.
 */
describe('Event log reads by transaction id and by time range', () => {
  let own: OwnDatabase;
  let db: DataSource;
  let repository: EventLogRepository;
  let tenant: Tenant;
  let customer: SeededCustomer;
  let other: SeededCustomer;
  let orderId: string;

  /** Stores an event as the service does: the row, and its transaction id's claim. */
  async function store(customerId: string, occurredAt: string, transactionId: string | null = null, eventName = 'visit'): Promise<string> {
    const [row] = await db.query(
      `WITH e AS (
         INSERT INTO events (organization_id, api_key_id, customer_id, source, transaction_id, name, occurred_at, status)
         VALUES ($1, $2, $3, 'v1', $4, $5, $6, 'processed') RETURNING id, transaction_id, occurred_at
       ), k AS (
         INSERT INTO event_transactions (api_key_id, transaction_id, occurred_at) SELECT $2, transaction_id, occurred_at FROM e WHERE transaction_id IS NOT NULL
       )
       SELECT id FROM e`,
      [tenant.organizationId, tenant.apiKeyId, customerId, transactionId, eventName, occurredAt],
    );
    return String(row.id);
  }

  /** The statements the data source sends while `run` runs (its logger records them). */
  const sent: Array<{ text: string; values: unknown[] }> = [];
  const quiet = () => undefined;
  const recorder: Logger = {
    logQuery: (text, values) => void sent.push({ text, values: (values as unknown[] | undefined) ?? [] }),
    logQueryError: quiet,
    logQuerySlow: quiet,
    logSchemaBuild: quiet,
    logMigration: quiet,
    log: quiet,
  };
  async function captured(run: () => Promise<unknown>): Promise<{ text: string; values: unknown[] }> {
    sent.length = 0;
    await run();
    expect(sent).toHaveLength(1);
    return sent[0];
  }

  /** The events partitions the statement's executed plan read. */
  async function partitionsRead(statement: { text: string; values: unknown[] }): Promise<string[]> {
    const [row] = await db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, statement.values);
    const read = (node: PlanNode): string[] => [
      ...(typeof node['Relation Name'] === 'string' && node['Relation Name'].startsWith('events_') && Number(node['Actual Loops']) > 0 ? [node['Relation Name']] : []),
      ...(node.Plans ?? []).flatMap(read),
    ];
    return [...new Set(read(row['QUERY PLAN'][0].Plan as PlanNode))].sort();
  }

  beforeAll(async () => {
    own = await ownDatabase('event_log_reads');
    db = new DataSource({ ...dataSourceOptions(own.url, 2), logging: ['query'], logger: recorder });
    await db.initialize();
    await db.runMigrations({ transaction: 'all' });
    await db.transaction(async (em) => {
      const partitions = new EventPartitionsRepository();
      for (const month of MONTHS) {
        const from = new Date(`${month}-01T00:00:00Z`);
        const to = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1));
        await partitions.addMonth(em, { name: partitionName(from), from, to });
      }
    });
    repository = new EventLogRepository(db);
    tenant = await seedTenant(db);
    customer = await seedCustomer(db, tenant);
    other = await seedCustomer(db, tenant);
    for (const month of MONTHS) {
      for (const day of ['01T00:00:00.000Z', '15T12:00:00.000Z', '28T23:59:59.999Z']) {
        await store(customer.id, `${month}-${day}`);
        await store(other.id, `${month}-${day}`);
      }
    }
    orderId = await store(customer.id, '2026-02-28T23:59:59.999Z', 'order-1001', 'purchase');
    await store(customer.id, '2026-03-01T00:00:00.000Z', 'order-1002', 'purchase');
  });

  afterAll(async () => {
    await db?.destroy();
    await own?.drop();
  });

  it('finds the events stored under a transaction id in an earlier month, and nothing for an unknown one', async () => {
    const found = await repository.byTransaction(tenant.apiKeyId, 'order-1001');
    expect(found.map((e) => ({ id: String(e.id), name: e.name, occurredAt: new Date(e.occurred_at).toISOString() }))).toEqual([
      { id: orderId, name: 'purchase', occurredAt: '2026-02-28T23:59:59.999Z' },
    ]);
    expect(await repository.byTransaction(tenant.apiKeyId, 'order-9999')).toEqual([]);
    expect(await repository.byTransaction(tenant.apiKeyId + 1, 'order-1001')).toEqual([]);
  });

  it("pages a customer's events in a range, oldest first, across months", async () => {
    const range = { from: new Date('2026-02-15T12:00:00.000Z'), to: new Date('2026-04-15T12:00:00.000Z') };
    const first = await repository.ofCustomer(customer.id, range, { limit: 4 });
    const rest = await repository.ofCustomer(customer.id, range, { after: { occurredAt: first[3].occurredAt, id: first[3].id }, limit: 10 });
    const all = [...first, ...rest];
    expect(all.map((e) => e.occurredAt.toISOString())).toEqual([
      '2026-02-15T12:00:00.000Z',
      '2026-02-28T23:59:59.999Z',
      '2026-02-28T23:59:59.999Z',
      '2026-03-01T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
      '2026-03-15T12:00:00.000Z',
      '2026-03-28T23:59:59.999Z',
      '2026-04-01T00:00:00.000Z',
    ]);
    expect(all.every((e) => e.customerId === customer.id)).toBe(true);
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    // Ties on occurred_at are broken by id.
    expect(Number(all[1].id)).toBeLessThan(Number(all[2].id));
  });

  it('reads only the months concerned', async () => {
    expect(await partitionsRead(await captured(() => repository.byTransaction(tenant.apiKeyId, 'order-1001')))).toEqual(['events_2026_02']);
    const range = { from: new Date('2026-03-10T00:00:00Z'), to: new Date('2026-04-10T00:00:00Z') };
    expect(await partitionsRead(await captured(() => repository.ofCustomer(customer.id, range, { limit: 50 })))).toEqual(['events_2026_03', 'events_2026_04']);
  });
});
