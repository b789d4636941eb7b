import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';

/** An erasure the worker has not finished (decision 0024): the job's row. */
export interface ErasureJob {
  customer_id: string;
  organization_id: number;
  erased_at: Date;
  /** The customer's external id, until the erasure is done (events rejected as unknown name them by it). */
  external_id: string;
  alias: string;
  step: string;
}

/** What the erasure's answer writes, in the customer's transaction (their row locked). */
export interface ErasureStart {
  customerId: string;
  organizationId: number;
  apiKeyId: number;
  erasedAt: string;
}

/**
 * The erasure's answer (contract §21): the customer row becomes a tombstone no lookup finds (personal data cleared,
 * the external id freed; the job keeps it until done, to find the events rejected under it), the job is recorded,
 * progress, experiment assignments and the events still waiting in the queue are deleted, webhook deliveries about
 * the customer not made yet are cancelled, the audit entry names the internal id alone, and `user.erased` goes to the
 * outbox. One statement.
 */
const START = `WITH before AS (
     SELECT external_id FROM customers WHERE id = $1
   ), erased AS (
     UPDATE customers SET external_id = NULL, tags = '{}', attributes = '{}', available_points = 0, lifetime_points = 0, tier_id = NULL,
            tier_floor_id = NULL, tier_review_at = NULL, qualified_campaign_ids = '{}', completed_campaign_ids = '{}', erased_at = $4, updated_at = $4
      WHERE id = $1 AND erased_at IS NULL
     RETURNING id
   ), job AS (
     INSERT INTO erasures (customer_id, organization_id, erased_at, external_id) SELECT id, $2, $4, (SELECT external_id FROM before) FROM erased RETURNING customer_id
   ), progress AS (
     DELETE FROM customer_progress WHERE customer_id = $1 AND EXISTS (SELECT 1 FROM job)
   ), assignments AS (
     DELETE FROM experiment_assignments WHERE customer_id = $1 AND EXISTS (SELECT 1 FROM job)
   ), queued AS (
     DELETE FROM events WHERE customer_id = $1 AND status = 'pending' AND EXISTS (SELECT 1 FROM job)
   ), cancelled AS (
     UPDATE webhook_deliveries SET status = 'cancelled', updated_at = now()
      WHERE (payload #>> '{data,user_id}') = $1::text AND status IN ('pending', 'retrying') AND EXISTS (SELECT 1 FROM job)
   ), audited AS (
     INSERT INTO audit_log (organization_id, api_key_id, action, object_type, object_id, created_at) SELECT $2, $3, 'delete', 'user', customer_id, $4 FROM job
   ), delivered AS (
     INSERT INTO webhook_deliveries (organization_id, webhook_id, type, payload)
     SELECT w.organization_id, w.id, 'user.erased',
            jsonb_build_object('id', gen_random_uuid(), 'type', 'user.erased', 'created_at', $5::text, 'data', jsonb_build_object('user_id', $1::text, 'erased_at', $5::text))
       FROM job JOIN webhooks w ON w.organization_id = $2 AND w.deleted_at IS NULL AND 'user.erased' = ANY(w.event_types)
      ORDER BY w.id
     RETURNING id
   )
   SELECT (SELECT count(*) FROM job)::int AS started, (SELECT array_agg(id ORDER BY id) FROM delivered) AS delivery_ids`;

/** The erasure jobs' table, and the answer's write. The steps' statements are in erasure-steps.repository.ts. */
@Injectable()
export class ErasureRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Answers the `user.erased` deliveries to queue once committed (null: the customer was erased meanwhile). */
  async start(uow: UnitOfWork, e: ErasureStart): Promise<string[] | null> {
    const [row] = await uow.run<{ started: number; delivery_ids: string[] | null }>({
      name: 'erasure-start',
      text: START,
      values: [e.customerId, e.organizationId, e.apiKeyId, e.erasedAt, e.erasedAt],
    });
    return row.started ? (row.delivery_ids ?? []).map(String) : null;
  }

  /** The erasures not finished, oldest first (at most `limit`). */
  open(limit: number): Promise<ErasureJob[]> {
    return this.db.query(
      `SELECT customer_id, organization_id, erased_at, external_id, alias, step FROM erasures WHERE done_at IS NULL ORDER BY erased_at, customer_id LIMIT $1`,
      [limit],
    ) as Promise<ErasureJob[]>;
  }

  /** Records that the job's step is done and the next one starts (answers false when another worker moved it). */
  async advance(job: ErasureJob, next: string | null): Promise<boolean> {
    const [{ n }] = (await this.db.query(
      `WITH moved AS (
         UPDATE erasures SET step = coalesce($3, step), done_at = CASE WHEN $3::text IS NULL THEN now() END, updated_at = now(),
                external_id = CASE WHEN $3::text IS NULL THEN NULL ELSE external_id END
          WHERE customer_id = $1 AND step = $2 AND done_at IS NULL RETURNING 1)
       SELECT count(*)::int AS n FROM moved`,
      [job.customer_id, job.step, next],
    )) as Array<{ n: number }>;
    return n > 0;
  }

  /** A failed attempt of the job's step, for the operator (the next sweep retries it). */
  async failed(job: ErasureJob, error: string): Promise<void> {
    await this.db.query(`UPDATE erasures SET attempts = attempts + 1, last_error = $2, updated_at = now() WHERE customer_id = $1`, [job.customer_id, error]);
  }

  query<T>(text: string, values: unknown[]): Promise<T[]> {
    return this.db.query(text, values) as Promise<T[]>;
  }
}
