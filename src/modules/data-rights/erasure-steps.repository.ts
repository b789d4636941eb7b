import { join } from 'node:path';
import { withoutCustomer } from './audience-file.js';
import type { ErasureJob } from './erasure.repository.js';

/** Rows one batch of a step deletes or rewrites at most. */
export const ERASURE_BATCH = 2_000;

/** What a step works with: the job, a way to run SQL, the analytics fold, and where audience files are. */
export interface StepContext {
  job: ErasureJob;
  query<T = Record<string, unknown>>(text: string, values: unknown[]): Promise<T[]>;
  foldAnalytics(): Promise<unknown>;
  storageDir: string;
}

/**
 * One step of an erasure (decision 0024). `batch` does at most ERASURE_BATCH rows of it and answers how many it did:
 * the step is over when a batch answers fewer, and `null` when it cannot go on yet (a run that may hold the customer
 * is still going): the next sweep tries again. Every batch only deletes or rewrites what is still there, so a batch
 * cut short by a crash is simply run again.
 */
export interface ErasureStep {
  name: string;
  batch(ctx: StepContext): Promise<number | null>;
}

/** Runs a statement that deletes or rewrites rows `RETURNING 1`; answers how many it did. */
const count = async (ctx: StepContext, statement: string, values: unknown[]): Promise<number> =>
  (await ctx.query<{ n: number }>(`WITH done AS (${statement}) SELECT count(*)::int AS n FROM done`, values))[0].n;

/** Deletes a batch of the customer's rows of a table keyed by `id`, by the index on its customer column. */
const deleteBatch = (ctx: StepContext, table: string) =>
  count(
    ctx,
    `DELETE FROM ${table} WHERE id IN (SELECT id FROM ${table} WHERE customer_id = $1 LIMIT $2) RETURNING 1`,
    [ctx.job.customer_id, ERASURE_BATCH],
  );

/** Tables keyed by `id` whose rows of the customer are deleted outright (their reads answer nothing of them any more). */
export const RECORD_TABLES = ['points_ledger', 'notifications', 'customer_offers', 'customer_tier_outcomes', 'tier_history', 'reward_effects'];

/** Whether a run of the organization that started before the erasure (and may hold the customer) is still going. */
const runningSince = async (ctx: StepContext, table: 'simulations' | 'audience_jobs') =>
  (await ctx.query(`SELECT 1 FROM ${table} WHERE organization_id = $1 AND status = 'running' AND started_at <= $2 LIMIT 1`, [
    ctx.job.organization_id,
    ctx.job.erased_at,
  ])).length > 0;

export const ERASURE_STEPS: readonly ErasureStep[] = [
  {
    // Activity not folded yet names the customer: folded first; then their per-customer rows take one id that links
    // to no one (the erasure's alias), so distinct counts stay.
    name: 'analytics',
    async batch(ctx) {
      await ctx.foldAnalytics();
      const { customer_id: id, alias, organization_id: org } = ctx.job;
      const campaigns = `campaign_id IN (SELECT id FROM campaigns WHERE organization_id = $3)`;
      await ctx.query(`UPDATE campaign_participants SET customer_id = $2 WHERE ${campaigns} AND customer_id = $1`, [id, alias, org]);
      await ctx.query(`UPDATE campaign_achievers SET customer_id = $2 WHERE ${campaigns} AND customer_id = $1`, [id, alias, org]);
      await ctx.query(`UPDATE campaign_goal_customers SET customer_id = $2 WHERE customer_id = $1`, [id, alias]);
      return 0;
    },
  },
  {
    // Webhook deliveries about the customer keep no data (the answer cancelled those not made; any left is cancelled).
    name: 'deliveries',
    batch: (ctx) =>
      count(
        ctx,
        `UPDATE webhook_deliveries SET status = CASE WHEN status IN ('pending', 'retrying') THEN 'cancelled' ELSE status END,
                payload = jsonb_build_object('id', payload->'id', 'type', payload->'type', 'created_at', payload->'created_at'), event_id = NULL, updated_at = now()
          WHERE id IN (SELECT id FROM webhook_deliveries WHERE (payload #>> '{data,user_id}') = $1 AND type <> 'user.erased' LIMIT $2)
         RETURNING 1`,
        [ctx.job.customer_id, ERASURE_BATCH],
      ),
  },
  {
    // Table after table; a table with a full batch deleted may hold more: the next batch starts there again.
    name: 'records',
    async batch(ctx) {
      let deleted = 0;
      for (const table of RECORD_TABLES) {
        const rows = await deleteBatch(ctx, table);
        if (rows === ERASURE_BATCH) return rows;
        deleted += rows;
      }
      return deleted;
    },
  },
  {
    // The event log, newest first, by the customer's timeline index (month by month: it is one index per month).
    name: 'events',
    batch: (ctx) =>
      count(
        ctx,
        `DELETE FROM events WHERE (id, occurred_at) IN (
           SELECT id, occurred_at FROM events WHERE customer_id = $1 ORDER BY occurred_at DESC, id DESC LIMIT $2) RETURNING 1`,
        [ctx.job.customer_id, ERASURE_BATCH],
      ),
  },
  {
    // Events rejected because no customer had the id they named (sent before the customer was created, or by a
    // mistyped id) keep that id and their context: those naming the customer's ids go too.
    name: 'rejected',
    batch: (ctx) =>
      count(
        ctx,
        `DELETE FROM events WHERE (id, occurred_at) IN (
           SELECT id, occurred_at FROM events
            WHERE organization_id = $1 AND status = 'rejected' AND customer_id IS NULL AND user_ref IN ($2, $3) LIMIT $4) RETURNING 1`,
        [ctx.job.organization_id, ctx.job.customer_id, ctx.job.external_id, ERASURE_BATCH],
      ),
  },
  {
    // A reversed transaction id stays reversed (409), naming no one: unlinked, and its free-text reason dropped.
    name: 'reversals',
    async batch(ctx) {
      await ctx.query(`UPDATE event_reversals SET customer_id = NULL, reason = NULL WHERE organization_id = $2 AND customer_id = $1`, [ctx.job.customer_id, ctx.job.organization_id]);
      return 0;
    },
  },
  {
    // Simulations keep their totals; the customer's id and explanations go (once no run that read them is going).
    name: 'simulations',
    async batch(ctx) {
      if (await runningSince(ctx, 'simulations')) return null;
      await ctx.query(
        `UPDATE simulations SET customer_ids = array_remove(customer_ids, $1::uuid), explanations = explanations - $1::text
          WHERE organization_id = $2 AND ($1::uuid = ANY(customer_ids) OR explanations ? $1::text)`,
        [ctx.job.customer_id, ctx.job.organization_id],
      );
      return 0;
    },
  },
  {
    // Audience files keep every record but the customer's (once no run that read the customer is going).
    name: 'audiences',
    async batch(ctx) {
      if (await runningSince(ctx, 'audience_jobs')) return null;
      const files = await ctx.query<{ file_path: string }>(`SELECT file_path FROM audience_jobs WHERE organization_id = $1 AND file_path IS NOT NULL`, [
        ctx.job.organization_id,
      ]);
      for (const { file_path } of files) await withoutCustomer(join(ctx.storageDir, file_path), ctx.job.customer_id);
      return 0;
    },
  },
  {
    // Last: anything of the customer written since the steps above (an event stored as the answer was given), then
    // the tombstone itself. Its foreign keys make sure nothing that references it is left.
    name: 'tombstone',
    async batch(ctx) {
      const id = ctx.job.customer_id;
      for (const table of [...RECORD_TABLES, 'events', 'customer_progress', 'experiment_assignments']) await ctx.query(`DELETE FROM ${table} WHERE customer_id = $1`, [id]);
      await ctx.query(`DELETE FROM customers WHERE id = $1 AND erased_at IS NOT NULL`, [id]);
      return 0;
    },
  },
];
