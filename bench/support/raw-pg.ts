/**
 * The raw `pg` ceiling of event processing, the same transaction shape as the raw phase of v1.bench.ts: lock the
 * customer, upsert a progress row, insert the event, update the points (one event per transaction).
 */
import pg from 'pg';

/** A progress state of the size the service writes. */
const RAW_STATE = JSON.stringify({ achieved: 1, completions: [], window: null, goals: { '1': { count: 0, completed: false, pivots: [], lastDay: null, countedAt: [] } } });

/**
 * One raw transaction for `customerId` (a customer the service never evaluates afterwards: the state written is not
 * the engine's). Answers 200 as the load generator expects.
 */
export async function rawTransaction(db: pg.Pool, organizationId: number, apiKey: string, customerId: string): Promise<number> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT id, available_points FROM customers WHERE id = $1 FOR UPDATE', [customerId]);
    await client.query(
      `INSERT INTO customer_progress (customer_id, behavior_id, state, achieved) SELECT $1, b.id, $2, 1 FROM behaviors b WHERE b.name = 'Visit'
       ON CONFLICT (customer_id, behavior_id) DO UPDATE SET state = EXCLUDED.state, achieved = customer_progress.achieved + 1`,
      [customerId, RAW_STATE],
    );
    await client.query(
      `INSERT INTO events (organization_id, api_key_id, customer_id, source, name, occurred_at, status) SELECT $1, k.id, $2, 'v1', 'visit', now(), 'processed' FROM api_keys k WHERE k.key = $3`,
      [organizationId, customerId, apiKey],
    );
    await client.query('UPDATE customers SET available_points = available_points + 1, lifetime_points = lifetime_points + 1 WHERE id = $1', [customerId]);
    await client.query('COMMIT');
    return 200;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}
