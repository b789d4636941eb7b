import { Injectable } from '@nestjs/common';
import type { Queryable, UnitOfWork } from '../../common/database/unit-of-work.js';

/** An effect as a worker claims it. */
export interface EffectRow {
  id: string;
  organization_id: number;
  customer_id: string;
  event_id: string;
  kind: string;
  campaign_id: number;
  behavior_id: number;
  payload: Record<string, unknown>;
  attempts: number;
}

/** The outbox of rewards' after-commit effects (reward_effects). */
@Injectable()
export class RewardEffectsRepository {
  /** The effect, locked for this transaction, if it is still open and no other worker holds it. */
  async claim(uow: UnitOfWork, id: string): Promise<EffectRow | null> {
    const [row] = await uow.query<EffectRow>(
      `SELECT id::text, organization_id, customer_id, event_id::text, kind, campaign_id, behavior_id, payload, attempts
         FROM reward_effects WHERE id = $1 AND status IN ('pending', 'retrying') FOR UPDATE SKIP LOCKED`,
      [id],
    );
    return row ?? null;
  }

  /** Marked done, in the effect's transaction (what commits it). */
  done(uow: UnitOfWork, id: string): Promise<unknown> {
    return uow.query(`UPDATE reward_effects SET status = 'done', attempts = attempts + 1, last_error = NULL, done_at = now(), updated_at = now() WHERE id = $1`, [id]);
  }

  /** An attempt that failed, after its transaction rolled back: retrying, or dead after the last attempt. */
  async failed(db: Queryable, id: string, error: string, dead: boolean): Promise<void> {
    await db.query(
      `UPDATE reward_effects SET status = $3, attempts = attempts + 1, last_error = $2, updated_at = now() WHERE id = $1 AND status IN ('pending', 'retrying')`,
      [id, error.slice(0, 1000), dead ? 'dead' : 'retrying'],
    );
  }

  /** The api key of the event that awarded the effect: the key the events it submits are stored under. */
  async apiKeyOf(uow: UnitOfWork, eventId: string): Promise<number | null> {
    const [row] = await uow.query<{ api_key_id: number }>(`SELECT api_key_id FROM events WHERE id = $1 LIMIT 1`, [eventId]);
    return row?.api_key_id ?? null;
  }

  /** Whether the customer belongs to the organization. */
  async customerOf(uow: UnitOfWork, organizationId: number, customerId: string): Promise<boolean> {
    const rows = await uow.query(`SELECT 1 FROM customers WHERE id = $1 AND organization_id = $2 AND erased_at IS NULL`, [customerId, organizationId]);
    return rows.length > 0;
  }

  /** A creative of the organization (not deleted), as a notification shows it. */
  async creative(uow: UnitOfWork, organizationId: number, id: number): Promise<{ ad_type: string; url: string | null; message: string | null; payload: Record<string, unknown> | null } | null> {
    const [row] = await uow.query<{ ad_type: string; url: string | null; message: string | null; payload: Record<string, unknown> | null }>(
      `SELECT ad_type, url, message, payload FROM creatives WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL`,
      [id, organizationId],
    );
    return row ?? null;
  }

  /**
   * A notification of a creative for the effect's customer, on the event that awarded the effect, and its
   * `notification.created` webhook: one delivery per webhook of the organization subscribed to that type, in the same
   * statement, as the evaluation's write makes them (docs/webhooks.md): the payload's `data` is the notification as
   * `/notifications` shows it (its id, type, campaign, behavior's name and data) with the customer's `user_id` and
   * `external_id`. None for a customer erased since. Answers the deliveries' ids, to queue once committed.
   */
  async notify(uow: UnitOfWork, effect: EffectRow, creativeId: number, type: string, data: unknown, occurrence: { id: string; createdAt: string }): Promise<string[]> {
    const [row] = await uow.query<{ delivery_ids: string[] }>(
      `WITH notification AS (
         INSERT INTO notifications (organization_id, customer_id, event_id, creative_id, campaign_id, behavior_id, type, data)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)
         RETURNING id
       ), deliveries AS (
         INSERT INTO webhook_deliveries (organization_id, webhook_id, event_id, type, payload)
         SELECT w.organization_id, w.id, $3, 'notification.created',
                jsonb_build_object('id', $9::text, 'type', 'notification.created', 'created_at', $10::text,
                  'data', jsonb_build_object('id', n.id, 'type', $7::text, 'campaign_id', $5::int, 'behavior_name', b.name, 'data', $8::jsonb,
                                             'user_id', c.id, 'external_id', c.external_id))
           FROM notification n
           JOIN customers c ON c.id = $2 AND c.erased_at IS NULL
           LEFT JOIN behaviors b ON b.id = $6
           JOIN webhooks w ON w.organization_id = $1 AND w.deleted_at IS NULL AND 'notification.created' = ANY(w.event_types)
          ORDER BY w.id
         RETURNING id
       )
       SELECT coalesce(array_agg(id::text ORDER BY id), '{}') AS delivery_ids FROM deliveries`,
      [effect.organization_id, effect.customer_id, effect.event_id, creativeId, effect.campaign_id, effect.behavior_id, type, JSON.stringify(data), occurrence.id, occurrence.createdAt],
    );
    return row?.delivery_ids ?? [];
  }

  /** The PostgreSQL backend of the transaction's connection: what a statement still running at the deadline is cancelled by. */
  async backend(uow: UnitOfWork): Promise<number> {
    const [row] = await uow.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`);
    return row.pid;
  }

  /** Cancels the statement the backend runs, if any (pg_cancel_backend: a backend idle in its transaction ignores it). */
  async cancel(db: Queryable, pid: number): Promise<void> {
    await db.query(`SELECT pg_cancel_backend($1)`, [pid]);
  }

  /** Effects still open `afterSeconds` after their last change: their job was lost (the sweeper queues them again). */
  async open(db: Queryable, afterSeconds: number): Promise<string[]> {
    const rows = (await db.query(
      `SELECT id::text FROM reward_effects WHERE status IN ('pending', 'retrying') AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT 1000`,
      [afterSeconds],
    )) as Array<{ id: string }>;
    return rows.map((r) => r.id);
  }

  /**
   * One page of the retention (REWARD_EFFECTS_RETENTION_DAYS): of the `page` effects after id `after`, in id order (the
   * primary key: no index of its own to keep), those done before `doneBefore` and those dead since before `deadBefore`
   * are deleted (each row's status checked again as it is deleted: one replayed meanwhile stays). Answers how many, the
   * page's last id (where the next page starts), and whether the page reached the end: the table's, or effects created
   * since `doneBefore`, past which none can be due (ids follow creation; `doneBefore` is the later of the two).
   */
  async purge(db: Queryable, after: string, page: number, doneBefore: Date, deadBefore: Date): Promise<{ deleted: number; last: string | null; end: boolean }> {
    const [row] = (await db.query(
      `WITH page AS (
         SELECT id, created_at FROM reward_effects WHERE id > $1 ORDER BY id LIMIT $2
       ), gone AS (
         DELETE FROM reward_effects r USING page p
          WHERE r.id = p.id AND ((r.status = 'done' AND r.done_at < $3) OR (r.status = 'dead' AND r.updated_at < $4))
         RETURNING r.id
       )
       SELECT (SELECT count(*) FROM gone)::int AS deleted, (SELECT max(id) FROM page)::text AS last,
              (SELECT count(*) FROM page) < $2 OR (SELECT bool_or(created_at >= $3) FROM page) AS reached_end`,
      [after, page, doneBefore.toISOString(), deadBefore.toISOString()],
    )) as Array<{ deleted: number; last: string | null; reached_end: boolean }>;
    return { deleted: row.deleted, last: row.last, end: row.reached_end };
  }

  /** Dead effects (every attempt failed), oldest first, with their last error. */
  async dead(db: Queryable, limit = 1000): Promise<Array<{ id: string; organization_id: number; kind: string; customer_id: string; attempts: number; last_error: string | null }>> {
    return (await db.query(
      `SELECT id::text, organization_id, kind, customer_id, attempts, last_error FROM reward_effects WHERE status = 'dead' ORDER BY id LIMIT $1`,
      [limit],
    )) as Array<{ id: string; organization_id: number; kind: string; customer_id: string; attempts: number; last_error: string | null }>;
  }

  /** Dead effects set open again (attempts from 0), to be queued: answers their ids. */
  async revive(db: Queryable): Promise<string[]> {
    // A SELECT over the UPDATE: TypeORM answers an UPDATE's rows with its count beside them.
    const rows = (await db.query(
      `WITH revived AS (UPDATE reward_effects SET status = 'retrying', attempts = 0, updated_at = now() WHERE status = 'dead' RETURNING id)
       SELECT id::text FROM revived ORDER BY id`,
    )) as Array<{ id: string }>;
    return rows.map((r) => r.id);
  }
}
