import type { INestApplication } from '@nestjs/common';
import pg from 'pg';
import request from 'supertest';
import { createTestApp } from './support/app.js';
import { waitFor } from './support/worker.js';
import { api, createTenant } from './factories/tenant.factory.js';

const CUSTOMERS = 20_000;

/**
 * An organization the planner's statistics do not know yet: created and filled with customers since the last ANALYZE
 * (a new tenant's import, before autovacuum comes round). PostgreSQL then estimates it at one row, and an index
 * leading with organization_id looks as cheap as the primary key: each lookup of one customer would read all of the
 * organization's. On a database of its own, whose statistics this spec sets up (autovacuum off for customers).
 */
describe('customer lookups of an organization unknown to the statistics', () => {
  const url = new URL(process.env.DATABASE_URL!);
  const database = `${url.pathname.slice(1)}_stats`;
  url.pathname = `/${database}`;
  let admin: pg.Client;
  let db: pg.Client;
  let app: INestApplication;

  beforeAll(async () => {
    const adminUrl = new URL(url);
    adminUrl.pathname = '/postgres';
    admin = new pg.Client({ connectionString: adminUrl.toString() });
    await admin.connect();
    // A copy of the run's migrated template (test/support/global-setup.js), not the migrations run again.
    await admin.query(`CREATE DATABASE "${database}" TEMPLATE "${process.env.TEST_RUN_ID}_template"`);
    db = new pg.Client({ connectionString: url.toString() });
    await db.connect();
    app = await createTestApp({ databaseUrl: url.toString() });
  });

  afterAll(async () => {
    await app?.close().catch(() => undefined);
    await db?.end();
    await admin?.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin?.end();
  });

  it('reads one customer per lookup, by id or external id, in V1 and V2', async () => {
    const known = await createTenant(app);
    for (let i = 0; i < 10; i += 1) await api(app, known).post('/users').send({ user: { external_id: `known-${i}` } }).expect(201);
    await db.query('ALTER TABLE customers SET (autovacuum_enabled = false)');
    await db.query('ANALYZE customers');

    const fresh = await createTenant(app);
    const { rows } = await db.query(
      `INSERT INTO customers (organization_id, external_id, time_zone, division_id)
       SELECT $1, 'c-' || g, 'UTC', $2 FROM generate_series(1, $3::int) g RETURNING id, external_id`,
      [fresh.organizationId, fresh.rootDivisionId, CUSTOMERS],
    );
    const picked = rows.filter((_, i) => i % 200 === 0); // 100 customers
    const fetched = async () => {
      await db.query('SELECT pg_stat_clear_snapshot()');
      return Number((await db.query(`SELECT idx_tup_fetch FROM pg_stat_user_tables WHERE relname = 'customers'`)).rows[0].idx_tup_fetch);
    };
    const before = await fetched();

    const events = picked.map((c, i) => (i % 2 ? { name: 'visit', user_id: c.id } : { name: 'visit', external_id: c.external_id }));
    await request(app.getHttpServer()).post(`/priv/v2/apps/${fresh.apiKey}/events`).auth(fresh.apiKey, fresh.apiSecret).send({ events }).expect(200);
    for (const c of picked.slice(0, 10)) {
      await api(app, fresh).post(`/users/${c.id}/events`).send({ events: { visit: 1 } }).expect(200);
      await api(app, fresh).post(`/external/users/${c.external_id}/events`).send({ events: { visit: 1 } }).expect(200);
    }
    const stored = await db.query(`SELECT count(*)::int AS n FROM events WHERE organization_id = $1 AND customer_id IS NOT NULL`, [fresh.organizationId]);
    expect(stored.rows[0].n).toBe(120);

    // A backend reports what it read to the statistics before it leaves pg_stat_activity (PostgreSQL 15 and later,
    // shared-memory statistics): close the service's connections and wait until none of them is left on the database.
    // 120 lookups and their writes read some hundreds of customer rows through indexes; a lookup that walked the
    // organization's customers would read 20,000 each.
    await app.close();
    const others = async () =>
      Number(
        (await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()`, [database]))
          .rows[0].n,
      );
    await waitFor(async () => (await others()) === 0, 30_000, "the service's connections to leave the database");
    const read = await fetched();
    expect(read - before).toBeGreaterThan(100);
    expect(read - before).toBeLessThan(5_000);
  });
});
