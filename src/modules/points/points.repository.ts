import { Injectable } from '@nestjs/common';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';

/** A ledger entry as the ledger read answers it. */
export interface LedgerEntryRow {
  id: string;
  amount: number;
  reason: string;
  event_id: string | null;
  campaign_id: number | null;
  behavior_name: string | null;
  expires_at: Date | null;
  created_at: Date;
}

/** A customer's balances after a change, with its tier's name. */
export interface BalanceRow {
  available_points: number;
  lifetime_points: number;
  tier: string | null;
}

export interface DebitRow extends BalanceRow {
  id: string;
  created_at: Date;
  delivery_ids: string[] | null;
}

/**
 * CTEs `spendable` and `consumed`: `amount` points (an SQL expression) taken from what is left of the customer's
 * expiring credits, soonest-expiring first (those `except` leaves out are not touched).
 */
export const consumeSoonestFirst = (customer: string, amount: string, except = 'true') => `spendable AS (
           SELECT id, remaining, sum(remaining) OVER (ORDER BY expires_at, id) - remaining AS before
             FROM points_ledger WHERE customer_id = ${customer} AND remaining > 0 AND ${except}
         ), consumed AS (
           UPDATE points_ledger l SET remaining = l.remaining - LEAST(s.remaining, ${amount} - s.before)
             FROM spendable s WHERE l.id = s.id AND s.before < ${amount}
           RETURNING 1
         )`;

/** The webhook deliveries of one occurrence, one per subscribed webhook of the organization (the outbox fan-out). */
export const deliveries = (org: string, type: string, payload: string) => `
  INSERT INTO webhook_deliveries (organization_id, webhook_id, type, payload)
  SELECT w.organization_id, w.id, ${type}, ${payload}
    FROM webhooks w
   WHERE w.organization_id = ${org} AND w.deleted_at IS NULL AND ${type} = ANY(w.event_types)
   ORDER BY w.id
  RETURNING id`;

/**
 * Every statement of the points routes: the ledger read, and a debit's consumption of credits, entry, balance and
 * webhook deliveries in one statement. `remaining` is kept on credits that expire (null on the others: they never
 * expire, so what is left of them is simply the balance's rest). Consuming the soonest-expiring credits first keeps
 * the unexpired `remaining` at most the balance, so an expiry never takes more than is there.
 */
@Injectable()
export class PointsRepository {
  async ledger(uow: UnitOfWork, customerId: string, limit: number, offset: number): Promise<{ entries: LedgerEntryRow[]; total: number; expiring: Array<{ points: number; expires_at: Date }> }> {
    const [entries, [count], expiring] = await Promise.all([
      uow.run<LedgerEntryRow>({
        name: 'points-ledger-page',
        text: `SELECT l.id, l.amount, l.reason, l.event_id, (l.source->>'campaign_id')::int AS campaign_id, b.name AS behavior_name, l.expires_at, l.created_at
                 FROM points_ledger l LEFT JOIN behaviors b ON b.id = (l.source->>'behavior_id')::int
                WHERE l.customer_id = $1
                ORDER BY l.created_at DESC, l.id DESC
                LIMIT $2 OFFSET $3`,
        values: [customerId, limit, offset],
      }),
      uow.run<{ total: string }>({ name: 'points-ledger-count', text: `SELECT count(*) AS total FROM points_ledger WHERE customer_id = $1`, values: [customerId] }),
      uow.run<{ points: number; expires_at: Date }>({
        name: 'points-expiring',
        text: `SELECT remaining AS points, expires_at FROM points_ledger WHERE customer_id = $1 AND remaining > 0 ORDER BY expires_at, id LIMIT 10`,
        values: [customerId],
      }),
    ]);
    return { entries, total: Number(count.total), expiring };
  }

  /** A debit of the api key with this transaction id, if any. */
  async debitExists(uow: UnitOfWork, apiKeyId: number, transactionId: string): Promise<boolean> {
    const rows = await uow.run({ name: 'points-transaction-used', text: `SELECT 1 FROM points_ledger WHERE api_key_id = $1 AND transaction_id = $2`, values: [apiKeyId, transactionId] });
    return rows.length > 0;
  }

  /**
   * Debits `points` of a locked customer who has them: the soonest-expiring credits' `remaining` consumed first, the
   * `debit` entry, the balance, and a `points.debited` delivery per subscribed webhook.
   */
  async debit(
    uow: UnitOfWork,
    d: { organizationId: number; customerId: string; externalId: string; points: number; description: string | null; apiKeyId: number; transactionId: string | null; webhookId: string; now: string },
  ): Promise<DebitRow> {
    const [row] = await uow.run<DebitRow>({
      name: 'points-debit',
      text: `WITH ${consumeSoonestFirst('$2', '$3')}, entry AS (
           INSERT INTO points_ledger (organization_id, customer_id, amount, reason, source, api_key_id, transaction_id, created_at)
           VALUES ($1, $2, -$3::int, 'debit', jsonb_build_object('description', $4::text), $5, $6, $7::timestamptz)
           RETURNING id, created_at
         ), customer AS (
           UPDATE customers SET available_points = available_points - $3, updated_at = now() WHERE id = $2
           RETURNING available_points, lifetime_points, tier_id
         ), delivered AS (${deliveries(
           '$1',
           `'points.debited'`,
           `jsonb_build_object('id', $8::text, 'type', 'points.debited', 'created_at', $7::text, 'data', jsonb_build_object('user_id', $2::uuid,
              'external_id', $9::text, 'points', $3::int, 'reason', 'debit', 'description', $4::text, 'created_at', $7::text,
              'available_points', (SELECT available_points FROM customer), 'lifetime_points', (SELECT lifetime_points FROM customer)))`,
         )})
         SELECT e.id, e.created_at, c.available_points, c.lifetime_points, t.name AS tier, (SELECT array_agg(id ORDER BY id) FROM delivered) AS delivery_ids
           FROM entry e, customer c LEFT JOIN tiers t ON t.id = c.tier_id`,
      values: [d.organizationId, d.customerId, d.points, d.description, d.apiKeyId, d.transactionId, d.now, d.webhookId, d.externalId],
    });
    return row;
  }

  /**
   * Expires credits due at `now`: the customers of the `customers` soonest-due credits are locked as an evaluation
   * locks them, skipping any locked now (an evaluation, a debit: the next batch takes them), in id order; their due
   * credits, at most `credits` of them in customer order (so a customer's are mostly expired together), leave each
   * customer's balance as one `expired` entry (at most its balance), their `remaining` goes to 0, and a
   * `points.expired` delivery goes to every subscribed webhook. Answers the credits expired and the deliveries.
   */
  async expireDue(uow: UnitOfWork, now: string, batch: { customers: number; credits: number }): Promise<{ credits: number; customers: number; deliveryIds: string[] }> {
    const [row] = await uow.run<{ credits: string; customers: string; delivery_ids: string[] | null }>({
      name: 'points-expire-due',
      text: `WITH due AS (
           SELECT DISTINCT customer_id FROM (
             SELECT customer_id FROM points_ledger WHERE remaining > 0 AND expires_at <= $1::timestamptz ORDER BY expires_at LIMIT $2
           ) d
         ), locked AS (
           SELECT c.id, c.organization_id, c.external_id, c.available_points FROM customers c
            WHERE c.id IN (SELECT customer_id FROM due) AND c.erased_at IS NULL ORDER BY c.id FOR NO KEY UPDATE SKIP LOCKED
         ), credits AS (
           SELECT l.id, l.customer_id, l.remaining FROM points_ledger l JOIN locked c ON c.id = l.customer_id
            WHERE l.remaining > 0 AND l.expires_at <= $1::timestamptz
            ORDER BY l.customer_id, l.expires_at, l.id LIMIT $4
         ), zeroed AS (
           UPDATE points_ledger l SET remaining = 0 FROM credits x WHERE l.id = x.id RETURNING 1
         ), expiring AS (
           SELECT c.id AS customer_id, c.organization_id, c.external_id, LEAST(sum(x.remaining), c.available_points)::int AS points,
                  c.available_points - LEAST(sum(x.remaining), c.available_points) AS available_points
             FROM credits x JOIN locked c ON c.id = x.customer_id
            GROUP BY c.id, c.organization_id, c.external_id, c.available_points
         ), entries AS (
           INSERT INTO points_ledger (organization_id, customer_id, amount, reason, source, created_at)
           SELECT organization_id, customer_id, -points, 'expired', '{}', $1::timestamptz FROM expiring WHERE points > 0
           RETURNING 1
         ), balances AS (
           UPDATE customers c SET available_points = e.available_points, updated_at = now() FROM expiring e WHERE c.id = e.customer_id AND e.points > 0
           RETURNING 1
         ), delivered AS (
           INSERT INTO webhook_deliveries (organization_id, webhook_id, type, payload)
           SELECT w.organization_id, w.id, 'points.expired',
                  jsonb_build_object('id', gen_random_uuid(), 'type', 'points.expired', 'created_at', $3::text, 'data', jsonb_build_object('user_id', e.customer_id,
                    'external_id', e.external_id, 'points', e.points, 'reason', 'expired', 'created_at', $3::text, 'available_points', e.available_points))
             FROM expiring e JOIN webhooks w ON w.organization_id = e.organization_id AND w.deleted_at IS NULL AND 'points.expired' = ANY(w.event_types)
            WHERE e.points > 0
            ORDER BY e.customer_id, w.id
           RETURNING id
         )
         SELECT (SELECT count(*) FROM zeroed) AS credits, (SELECT count(*) FROM balances) AS customers,
                (SELECT array_agg(id ORDER BY id) FROM delivered) AS delivery_ids`,
      values: [now, batch.customers, new Date(now).toISOString(), batch.credits],
    });
    return { credits: Number(row.credits), customers: Number(row.customers), deliveryIds: (row.delivery_ids ?? []).map(String) };
  }
}
