import type { Queryable } from '../../../common/database/unit-of-work.js';

/**
 * What the tier policy preview reads (contract §17): every customer of an organization with its stored tier, lifetime
 * points and policy-change floor, and its qualification facts as tier-facts.repository.ts defines them (credits not
 * reversed by `occurred_at`, tier outcomes), by month of the organization's zone. Nothing here writes.
 *
 * A month is `year * 12 + month - 1` of the zone (2026-03 is 24314). The credits of a customer come as one text,
 * comma-separated, each `month * 2^32 + amount + 2^31` (a PostgreSQL bigint, exact as a JavaScript number for any year
 * before 100,000), summed per month by the caller: grouping 20,000,000 rows by customer and month in SQL costs more
 * than it saves, most months holding one credit. The month of a credit is found by a binary search over the month
 * starts of a window around now (`width_bucket`), computed once; a credit outside the window takes the exact
 * time zone conversion (two `AT TIME ZONE` a row: about 0.5 µs, 10 s of one core for 20,000,000 credits).
 *
 * Two ways to read them, the same rows either way:
 * - by batch (`customerBatch`): keyset pages of a division's customers (the index `(division_id, id)`), each customer's
 *   credits and outcomes by their customer indexes. Its cost follows the organization's size, whatever the database's:
 *   about 20 random heap reads per customer of 20 credits when the ledger is in time order.
 * - in one pass (`declareScan`): one sequential scan of the ledger, grouped by customer, read through a cursor. Its
 *   cost follows the ledger's size: the way for an organization that holds a good part of it.
 */
export interface PreviewCustomerRow {
  id: string;
  tier_id: number | null;
  lifetime_points: string;
  tier_floor_id: number | null;
  /** The credits not reversed, `month * 2^32 + amount + 2^31` each, comma-separated; null without any. */
  credits: string | null;
  /** The tier outcomes, `month:tier_id` each, comma-separated; null without any. */
  outcomes: string | null;
}

/** The month starts the credits are searched in: `starts[i]` begins month `first + i`; the last one ends the window. */
export interface MonthWindow {
  timeZone: string;
  first: number;
  starts: Date[];
}

export const MONTH_FACTOR = 4_294_967_296;
export const AMOUNT_OFFSET = 2_147_483_648;

/** The month of the zone (param `tz`) an instant falls in, exactly. */
const exactMonth = (column: string, tz: string) => `(extract(year FROM ${column} AT TIME ZONE ${tz}) * 12 + extract(month FROM ${column} AT TIME ZONE ${tz}) - 1)::int`;

/**
 * A credit row `l`, encoded. Params: `tz` the zone, `first` the window's first month, `bounds` its month starts
 * (timestamptz[]), `lo` and `hi` the first and last of them.
 */
function encodedCredit(p: { tz: string; first: string; bounds: string; lo: string; hi: string }): string {
  const month = `CASE WHEN l.occurred_at >= ${p.lo} AND l.occurred_at < ${p.hi} THEN ${p.first} + width_bucket(l.occurred_at, ${p.bounds}) - 1 ELSE ${exactMonth('l.occurred_at', p.tz)} END`;
  return `(${month})::int8 * ${MONTH_FACTOR} + l.amount + ${AMOUNT_OFFSET}`;
}

const outcomeText = (tz: string) => `${exactMonth('t.occurred_at', tz)} || ':' || t.tier_id`;

const CREDIT = `l.occurred_at IS NOT NULL AND l.reversed_at IS NULL`;

/** The month starts of the zone from the month of `from` through the month after `to`'s (ISO instants). */
export async function monthWindow(db: Queryable, timeZone: string, from: Date, to: Date): Promise<MonthWindow> {
  const rows = (await db.query(
    `SELECT ${exactMonth('m.at', '$1')} AS month, m.at
       FROM generate_series(date_trunc('month', $2::timestamptz AT TIME ZONE $1), date_trunc('month', $3::timestamptz AT TIME ZONE $1) + interval '1 month', interval '1 month') s(local)
      CROSS JOIN LATERAL (SELECT s.local AT TIME ZONE $1 AS at) m
      ORDER BY s.local`,
    [timeZone, from.toISOString(), to.toISOString()],
  )) as Array<{ month: number; at: Date }>;
  return { timeZone, first: rows[0].month, starts: rows.map((r) => r.at) };
}

/** The organization's divisions (deleted ones too: their customers stay), its customers, and all customers (an estimate). */
export async function organizationScale(db: Queryable, organizationId: number): Promise<{ divisionIds: number[]; customers: number; allCustomers: number }> {
  const divisions = (await db.query(`SELECT id FROM divisions WHERE organization_id = $1 ORDER BY id`, [organizationId])) as Array<{ id: number }>;
  const divisionIds = divisions.map((d) => d.id);
  const [counted] = (await db.query(`SELECT count(*)::int AS n FROM customers WHERE division_id = ANY($1::int[]) AND erased_at IS NULL`, [divisionIds])) as Array<{ n: number }>;
  const [estimate] = (await db.query(`SELECT greatest(reltuples, 0)::bigint AS n FROM pg_class WHERE oid = 'customers'::regclass`)) as Array<{ n: string }>;
  return { divisionIds, customers: counted.n, allCustomers: Math.max(Number(estimate?.n ?? 0), counted.n) };
}

/** Every tier of the organization, deleted ones too (a customer may keep one, with its marked name). */
export async function organizationTiers(db: Queryable, organizationId: number): Promise<Array<{ id: number; name: string; min_points: number }>> {
  return (await db.query(`SELECT id, name, min_points FROM tiers WHERE organization_id = $1`, [organizationId])) as Array<{ id: number; name: string; min_points: number }>;
}

const windowParams = (w: MonthWindow) => [w.timeZone, w.first, w.starts.map((d) => d.toISOString()), w.starts[0].toISOString(), w.starts[w.starts.length - 1].toISOString()];

/** A page of a division's customers after `afterId` (by id), with their facts. */
export async function customerBatch(db: Queryable, window: MonthWindow, organizationId: number, divisionId: number, afterId: string | null, limit: number): Promise<PreviewCustomerRow[]> {
  const credit = encodedCredit({ tz: '$1', first: '$2', bounds: '$3::timestamptz[]', lo: '$4::timestamptz', hi: '$5::timestamptz' });
  return (await db.query(
    `SELECT c.id, c.tier_id, c.lifetime_points::text AS lifetime_points, c.tier_floor_id,
            (SELECT array_to_string(array_agg(${credit}), ',') FROM points_ledger l WHERE l.customer_id = c.id AND ${CREDIT}) AS credits,
            (SELECT string_agg(${outcomeText('$1')}, ',') FROM customer_tier_outcomes t WHERE t.customer_id = c.id) AS outcomes
       FROM customers c
      WHERE c.division_id = $6 AND c.organization_id = $7 AND ($8::uuid IS NULL OR c.id > $8::uuid) AND c.erased_at IS NULL
      ORDER BY c.id
      LIMIT $9`,
    [...windowParams(window), divisionId, organizationId, afterId, limit],
  )) as PreviewCustomerRow[];
}

/**
 * Opens `cursor` (in the caller's transaction) on the organization's customers whose id lies in `range` ([from, to),
 * null: unbounded), with their facts, in one pass: the ledger read sequentially and grouped by customer in memory
 * (`workMem`, spilled to disk past it), the customers and their outcomes joined. The plan is fixed for that: a cursor
 * is otherwise planned for its first rows, and the ledger's customer index looks cheaper than it is when the ledger is in
 * time order (each customer's credits on as many pages).
 */
export async function declareScan(
  db: Queryable,
  cursor: string,
  window: MonthWindow,
  organizationId: number,
  workMem: string,
  range: { from: string | null; to: string | null },
): Promise<void> {
  for (const setting of [`work_mem = '${workMem}'`, 'cursor_tuple_fraction = 1', 'enable_indexscan = off', 'enable_bitmapscan = off', 'jit = off']) {
    await db.query(`SET LOCAL ${setting}`);
  }
  const credit = encodedCredit({ tz: '$1', first: '$2', bounds: '$3::timestamptz[]', lo: '$4::timestamptz', hi: '$5::timestamptz' });
  const inRange = (column: string) => `(${column} >= $7::uuid OR $7::uuid IS NULL) AND (${column} < $8::uuid OR $8::uuid IS NULL)`;
  await db.query(
    `DECLARE ${cursor} NO SCROLL CURSOR FOR
     SELECT c.id, c.tier_id, c.lifetime_points::text AS lifetime_points, c.tier_floor_id, f.credits, o.outcomes
       FROM customers c
       LEFT JOIN (SELECT l.customer_id, array_to_string(array_agg(${credit}), ',') AS credits
                    FROM points_ledger l
                   WHERE l.organization_id = $6 AND ${CREDIT} AND ${inRange('l.customer_id')}
                   GROUP BY l.customer_id) f ON f.customer_id = c.id
       LEFT JOIN (SELECT t.customer_id, string_agg(${outcomeText('$1')}, ',') AS outcomes
                    FROM customer_tier_outcomes t JOIN customers tc ON tc.id = t.customer_id
                   WHERE tc.organization_id = $6 AND ${inRange('t.customer_id')}
                   GROUP BY t.customer_id) o ON o.customer_id = c.id
      WHERE c.organization_id = $6 AND ${inRange('c.id')} AND c.erased_at IS NULL`,
    [...windowParams(window), organizationId, range.from, range.to],
  );
}

export async function fetchScan(db: Queryable, cursor: string, count: number): Promise<PreviewCustomerRow[]> {
  return (await db.query(`FETCH ${count} FROM ${cursor}`)) as PreviewCustomerRow[];
}
