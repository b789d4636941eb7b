import { readdirSync, readFileSync } from 'node:fs';
import { isServiceTable, SERVICE_TABLES } from './service-tables.js';

describe('the service tables a domain action may not write', () => {
  it('hold every table a migration creates', () => {
    const created = readdirSync('migrations')
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) => [...readFileSync(`migrations/${file}`, 'utf8').matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_]+)/g)].map((m) => m[1]));
    expect(created.length).toBeGreaterThan(20);
    expect(created.filter((table) => !isServiceTable(table))).toEqual([]);
    expect(SERVICE_TABLES.has('points_ledger')).toBe(true);
  });

  it("refuses the event log's partitions and a schema-qualified public table, and lets an extension's own through", () => {
    expect([isServiceTable('events_2026_11'), isServiceTable('public.customers'), isServiceTable('referral_links'), isServiceTable('loyalty.customers')]).toEqual([true, true, false, false]);
  });
});
