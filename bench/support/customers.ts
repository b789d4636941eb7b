/** Customers (and progress rows) written straight into a benchmark's database: a million rows take seconds. */
import pg from 'pg';
import { emptyBehaviorProgress } from '../../src/engine/index.js';

/**
 * Customers `prefix`1..`prefix`N... from `from` to `to` (external ids), in the organization's root division; with
 * `progress`, one progress row each for every live behavior of the organization, in the state the engine writes
 * before a goal counts anything (so the service reads and updates them as its own). Answers the rows inserted.
 */
export async function addCustomers(
  db: pg.Pool,
  organizationId: number,
  prefix: string,
  from: number,
  to: number,
  progress = false,
): Promise<{ customers: number; progressRows: number }> {
  const insert = `INSERT INTO customers (organization_id, external_id, time_zone, division_id)
     SELECT $1, $2 || g, 'America/New_York', d.id FROM generate_series($3::int, $4::int) g, divisions d WHERE d.organization_id = $1
     RETURNING id`;
  if (!progress) {
    const customers = (await db.query(insert, [organizationId, prefix, from, to])).rowCount ?? 0;
    await analyze(db);
    return { customers, progressRows: 0 };
  }
  const result = await db.query(
    `WITH c AS (${insert}),
          p AS (INSERT INTO customer_progress (customer_id, behavior_id, state, achieved)
                SELECT c.id, b.id, $5::jsonb, 0 FROM c, behaviors b WHERE b.organization_id = $1 AND b.deleted_at IS NULL
                RETURNING 1)
     SELECT (SELECT count(*) FROM c)::int AS customers, (SELECT count(*) FROM p)::int AS progress_rows`,
    [organizationId, prefix, from, to, JSON.stringify(emptyBehaviorProgress())],
  );
  await analyze(db);
  return { customers: result.rows[0].customers, progressRows: result.rows[0].progress_rows };
}

/**
 * Fresh statistics, as autovacuum would take them in time: without them the planner takes a new organization for an
 * empty one and looks its customers up through customers_division, filtering every customer of the organization for
 * each event (V2 acceptance measured 100× slower per event, V1 twice the PostgreSQL CPU).
 */
async function analyze(db: pg.Pool): Promise<void> {
  await db.query('ANALYZE customers');
  await db.query('ANALYZE customer_progress');
}

export async function customerIds(db: pg.Pool, organizationId: number): Promise<string[]> {
  return (await db.query(`SELECT id FROM customers WHERE organization_id = $1`, [organizationId])).rows.map((r) => r.id);
}
