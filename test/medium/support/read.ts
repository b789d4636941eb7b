import type { DataSource } from 'typeorm';

/** What a user would look at after an evaluation, read straight from the tables. */

export async function balance(db: DataSource, customerId: string): Promise<{ available: number; lifetime: number }> {
  const rows = (await db.query(`SELECT available_points, lifetime_points FROM customers WHERE id = $1`, [customerId])) as Array<{ available_points: string; lifetime_points: string }>;
  return { available: Number(rows[0].available_points), lifetime: Number(rows[0].lifetime_points) };
}

export async function ledgerTotal(db: DataSource, customerId: string): Promise<{ rows: number; total: number }> {
  const rows = (await db.query(`SELECT count(*)::int AS rows, coalesce(sum(amount), 0)::int AS total FROM points_ledger WHERE customer_id = $1`, [customerId])) as Array<{
    rows: number;
    total: number;
  }>;
  return rows[0];
}

export async function eventsOf(db: DataSource, customerId: string): Promise<Array<{ id: string; name: string; status: string; points_earned: string; transaction_id: string | null }>> {
  return (await db.query(`SELECT id, name, status, points_earned, transaction_id FROM events WHERE customer_id = $1 ORDER BY id`, [customerId])) as Array<{
    id: string;
    name: string;
    status: string;
    points_earned: string;
    transaction_id: string | null;
  }>;
}

export async function achieved(db: DataSource, customerId: string, behaviorId: number): Promise<number | null> {
  const rows = (await db.query(`SELECT achieved FROM customer_progress WHERE customer_id = $1 AND behavior_id = $2`, [customerId, behaviorId])) as Array<{ achieved: number }>;
  return rows[0]?.achieved ?? null;
}
