import { afterAll, afterEach, expect } from '@jest/globals';
import pg from 'pg';
import { ledgerMismatches, ledgerOrganizations } from './ledger.js';

// After every e2e test, the ledger of every customer of the organizations the spec file created sums to its
// available_points (contract §13, test/support/ledger.ts), whatever the test did to them.
let client: pg.Client | null = null;

afterEach(async () => {
  if (ledgerOrganizations.size === 0) return;
  if (!client) {
    client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
  }
  const db = client;
  expect(await ledgerMismatches({ query: async (text, values) => (await db.query(text, values)).rows }, [...ledgerOrganizations])).toEqual([]);
});

afterAll(async () => {
  await client?.end();
});
