import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PERSONAL_DATA } from '../../src/database/personal-data.js';
import { useOwnDatabase } from '../support/database.js';
import { createMediumContext, type MediumContext } from './support/module.js';

/**
 * Every table and column of the migrated schema is classified for erasure (src/database/personal-data.ts, contract
 * §21): a migration that adds one fails here until someone decides what erasing a customer does to it.
 */
describe('the schema against its personal data classification', () => {
  let ctx: MediumContext;
  let schema: Map<string, string[]>;

  beforeAll(async () => {
    // A database of its own, copied from the migrated template: other files create tables of their own in the shared one.
    await useOwnDatabase('personal_data');
    ctx = await createMediumContext({}, Date.UTC(2026, 10, 29));
    const rows: Array<{ table_name: string; columns: string[] }> = await ctx.db.query(
      `SELECT c.table_name, array_agg(c.column_name::text ORDER BY c.ordinal_position) AS columns
         FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
        WHERE c.table_schema = 'public' AND c.table_name !~ '^events_'
        GROUP BY 1`,
    );
    schema = new Map(rows.map((r) => [r.table_name, r.columns]));
  });
  afterAll(() => ctx.close());

  it('classifies every table, and no table that does not exist', () => {
    expect([...schema.keys()].sort()).toEqual(Object.keys(PERSONAL_DATA).sort());
  });

  it('lists every column of every table, in order', () => {
    const differences = [...schema].filter(([name, columns]) => JSON.stringify(columns) !== JSON.stringify(PERSONAL_DATA[name]?.columns));
    expect(differences.map(([name, columns]) => ({ table: name, columns }))).toEqual([]);
  });

  it("names, for a table kept anonymous, columns it has; and every table's partitions of the event log are the log's", async () => {
    for (const [name, t] of Object.entries(PERSONAL_DATA)) {
      expect({ name, missing: (t.personal ?? []).filter((c) => !t.columns.includes(c)) }).toEqual({ name, missing: [] });
      expect({ name, personal: t.handling === 'kept_anonymous' ? (t.personal ?? []).length > 0 : t.personal === undefined }).toEqual({ name, personal: true });
    }
    const partitions: Array<{ name: string }> = await ctx.db.query(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'events'`,
    );
    expect(partitions.length).toBeGreaterThan(0);
    const others = (await ctx.db.query(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_name ~ '^events_'`)) as Array<{ name: string }>;
    expect(others.map((o) => o.name).filter((n) => !partitions.some((p) => p.name === n))).toEqual([]);
  });
});
