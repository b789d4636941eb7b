import { Injectable } from '@nestjs/common';
import type { Queryable, UnitOfWork } from '../../../common/database/unit-of-work.js';

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

  /** A notification of a creative for the effect's customer, on the event that awarded the effect. */
  async notify(uow: UnitOfWork, effect: EffectRow, creativeId: number, type: string, data: unknown): Promise<void> {
    await uow.query(
      `INSERT INTO notifications (organization_id, customer_id, event_id, creative_id, campaign_id, behavior_id, type, data)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [effect.organization_id, effect.customer_id, effect.event_id, creativeId, effect.campaign_id, effect.behavior_id, type, JSON.stringify(data)],
    );
  }

  /** Effects still open `afterSeconds` after their last change: their job was lost (the sweeper queues them again). */
  async open(db: Queryable, afterSeconds: number): Promise<string[]> {
    const rows = (await db.query(
      `SELECT id::text FROM reward_effects WHERE status IN ('pending', 'retrying') AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT 1000`,
      [afterSeconds],
    )) as Array<{ id: string }>;
    return rows.map((r) => r.id);
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
