import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Tenant } from '../../src/common/http/request-context.js';
import { AppError } from '../../src/common/errors/app-error.js';
import { AnalyticsRepository } from '../../src/modules/analytics/analytics.repository.js';
import { EraseCustomerUseCase } from '../../src/modules/data-rights/erase-customer.use-case.js';
import { ERASURE_BATCH, ERASURE_STEPS, type StepContext } from '../../src/modules/data-rights/erasure-steps.repository.js';
import { ErasureRepository, type ErasureJob } from '../../src/modules/data-rights/erasure.repository.js';
import { EvaluationPipeline } from '../../src/modules/evaluation/evaluation.pipeline.js';
import { V1EventsUseCase } from '../../src/modules/events/v1-events.use-case.js';
import { useOwnDatabase } from '../support/database.js';
import { createMediumContext, type MediumContext } from './support/module.js';
import { v1Request } from './support/evaluations.js';
import { seedCampaign, seedCustomer, seedTenant, type SeededCustomer } from './support/seed.js';

const NOW = Date.UTC(2026, 10, 20, 12);
const DAY = 86_400_000;

/**
 * The erasure (contract §21, decision 0024) on the real database, without HTTP: what its answer commits, and each of
 * the worker's steps, run in turn on a customer with rows everywhere: each removes what it names and nothing of the
 * steps after it, and a step run again (a worker killed after its last batch, before it recorded the step done)
 * changes nothing.
 */
describe('erasure steps on the real database', () => {
  let ctx: MediumContext;
  let storageDir: string;
  let erase: EraseCustomerUseCase;
  let repository: ErasureRepository;

  beforeAll(async () => {
    // Its own database: the erasure worker of every e2e file's worker would otherwise take these erasures' steps.
    await useOwnDatabase('erasure_steps');
    ctx = await createMediumContext({}, NOW);
    storageDir = await mkdtemp(join(tmpdir(), 'erasure-steps-'));
    repository = new ErasureRepository(ctx.db);
    erase = new EraseCustomerUseCase(ctx.app.get(EvaluationPipeline), repository, ctx.clock);
  });
  afterAll(async () => {
    await ctx.close();
    await rm(storageDir, { recursive: true, force: true });
  });

  const count = async (sql: string, values: unknown[]) => Number(((await ctx.db.query(sql, values)) as Array<{ n: string }>)[0].n);
  /** The customer's erasure as the worker reads it. */
  const job = async (customerId: string): Promise<ErasureJob> => (await repository.open(1_000)).find((j) => j.customer_id === customerId)!;
  const stepContext = (erasure: ErasureJob): StepContext => ({
    job: erasure,
    query: async (text, values) => (await ctx.db.query(text, values)) as never[],
    foldAnalytics: () => new AnalyticsRepository(ctx.db).foldAll(),
    storageDir,
  });
  /** Runs a step's batches until its last; answers the rows each batch did. */
  const runStep = async (name: string, erasure: ErasureJob): Promise<Array<number | null>> => {
    const step = ERASURE_STEPS.find((s) => s.name === name)!;
    const done: Array<number | null> = [];
    for (;;) {
      const rows = await step.batch(stepContext(erasure));
      done.push(rows);
      if (rows === null || rows < ERASURE_BATCH) return done;
    }
  };

  /**
   * A customer (and a neighbour) with rows in every table the erasure touches: three V1 visits (10 points each: ledger,
   * progress, analytics activity, the last not folded yet), and by SQL what other features leave: a notification, an offer, tier history and
   * outcome, a reward effect, a reversal, webhook deliveries (pending and delivered), an event rejected under their
   * external id (sent before they existed), a simulation explaining both and an audience file holding both.
   */
  async function world() {
    const tenant: Tenant = await seedTenant(ctx.db);
    const { campaignId, behaviorIds } = await seedCampaign(ctx.db, tenant, [{ event: 'visit', points: 10, data: { max_times_repeatable: 100 } }]);
    const customer = await seedCustomer(ctx.db, tenant);
    const neighbour = await seedCustomer(ctx.db, tenant);
    const visit = (who: SeededCustomer, daysAgo: number) =>
      ctx.app.get(V1EventsUseCase).execute(v1Request(tenant, { userId: who.id }, { visit: 1 }, { date: new Date(NOW - daysAgo * DAY).toISOString() }));
    // Two visits each folded into the analytics, the last one not yet: the erasure folds it first.
    for (const who of [customer, neighbour]) for (const daysAgo of [80, 40]) await visit(who, daysAgo);
    await new AnalyticsRepository(ctx.db).foldAll();
    for (const who of [customer, neighbour]) await visit(who, 0);
    const org = tenant.organizationId;
    const [offer] = await ctx.db.query(`INSERT INTO offers (organization_id, name, points) VALUES ($1, 'Coffee', 0) RETURNING id`, [org]);
    const [tier] = await ctx.db.query(`INSERT INTO tiers (organization_id, name, min_points) VALUES ($1, 'Silver', 10) RETURNING id`, [org]);
    const [creative] = await ctx.db.query(
      `WITH l AS (INSERT INTO line_items (organization_id, campaign_id, name, status, starts_at, ends_at) VALUES ($1, $2, 'Files', 'live', now(), now() + interval '1 year') RETURNING id),
            g AS (INSERT INTO creative_groups (organization_id, line_item_id, name, status, starts_at, ends_at) SELECT $1, id, 'All', 'live', now(), now() + interval '1 year' FROM l RETURNING id)
       INSERT INTO creatives (organization_id, creative_group_id, application_id, name, status, ad_type, creative_type)
       SELECT $1, g.id, $3, 'File', 'live', 'issue_audience_csv', 'issue-audience-csv' FROM g RETURNING id`,
      [org, campaignId, tenant.applicationId],
    );
    const [webhook] = await ctx.db.query(`INSERT INTO webhooks (organization_id, url, event_types, secret) VALUES ($1, 'https://hooks.example.com/x', '{points.credited}', 's') RETURNING id`, [org]);
    for (const who of [customer, neighbour]) {
      const params = [org, who.id, campaignId, behaviorIds[0], offer.id, tier.id, webhook.id, creative.id, who.externalId];
      await ctx.db.query(
        `WITH n AS (INSERT INTO notifications (organization_id, customer_id, creative_id, campaign_id, behavior_id, type, data) VALUES ($1, $2, $8, $3, $4, 'push_message', '{"message":"hi"}') RETURNING 1),
              o AS (INSERT INTO customer_offers (organization_id, customer_id, offer_id, campaign_id, behavior_id) VALUES ($1, $2, $5, $3, $4) RETURNING 1),
              h AS (INSERT INTO tier_history (customer_id, from_tier_id, to_tier_id, reason, at) VALUES ($2, NULL, $6, 'points', now()) RETURNING 1),
              t AS (INSERT INTO customer_tier_outcomes (customer_id, tier_id, event_id, occurred_at) VALUES ($2, $6, 1, now()) RETURNING 1),
              r AS (INSERT INTO reward_effects (organization_id, customer_id, event_id, kind, campaign_id, behavior_id, payload) VALUES ($1, $2, 1, 'stamp', $3, $4, '{}') RETURNING 1),
              v AS (INSERT INTO event_reversals (organization_id, api_key_id, transaction_id, customer_id, events, points, achievements)
                    SELECT $1, id, 'till-' || $2, $2, 1, 10, 1 FROM api_keys WHERE organization_id = $1 RETURNING 1),
              x AS (INSERT INTO events (organization_id, api_key_id, customer_id, user_ref, source, name, count, occurred_at, status, reason)
                    SELECT $1, id, NULL, $9, 'v2', 'visit', 1, now(), 'rejected', 'customer_not_found' FROM api_keys WHERE organization_id = $1 RETURNING 1)
         INSERT INTO webhook_deliveries (organization_id, webhook_id, type, payload, status)
         SELECT $1, $7, 'points.credited', jsonb_build_object('id', gen_random_uuid(), 'type', 'points.credited', 'created_at', now(), 'data', jsonb_build_object('user_id', $2::text, 'external_id', 'x')), s
           FROM unnest(ARRAY['pending', 'delivered']) s`,
        params,
      );
    }
    const explanations = { [customer.id]: [{ event: 'visit' }], [neighbour.id]: [{ event: 'visit' }] };
    await ctx.db.query(
      `INSERT INTO simulations (organization_id, campaign_id, status, range_from, range_to, customer_ids, explain, customers, events_replayed, results, explanations, completed_at)
       VALUES ($1, $2, 'completed', now() - interval '1 year', now(), $3, true, 2, 6, '{}', $4, now())`,
      [org, campaignId, [customer.id, neighbour.id], JSON.stringify(explanations)],
    );
    const file = join('audience-jobs', String(org), 'one.csv');
    await mkdir(join(storageDir, 'audience-jobs', String(org)), { recursive: true });
    // The customer's record spans two lines (an external id with a line break is quoted), then a quoted one with a quote.
    await writeFile(join(storageDir, file), `external_id,user_id\n"two\nlines",${customer.id}\n"a ""b""",${neighbour.id}\n`);
    await ctx.db.query(
      `INSERT INTO audience_jobs (organization_id, creative_id, status, scheduled_at, customer_count, file_path, completed_at) VALUES ($1, $2, 'completed', now(), 2, $3, now())`,
      [org, creative.id, file],
    );
    return { tenant, campaignId, customer, neighbour, file };
  }

  /** Rows naming the customer, table by table (the ones the steps remove or rewrite). */
  async function rowsOf(who: SeededCustomer, file: string) {
    const byCustomer = async (table: string) => count(`SELECT count(*) AS n FROM ${table} WHERE customer_id = $1`, [who.id]);
    return {
      analytics: (await byCustomer('campaign_participants')) + (await byCustomer('campaign_achievers')),
      deliveries: await count(`SELECT count(*) AS n FROM webhook_deliveries WHERE payload #>> '{data,user_id}' = $1 AND type <> 'user.erased'`, [who.id]),
      records:
        (await byCustomer('points_ledger')) + (await byCustomer('notifications')) + (await byCustomer('customer_offers')) + (await byCustomer('tier_history')) +
        (await byCustomer('customer_tier_outcomes')) + (await byCustomer('reward_effects')),
      events: await byCustomer('events'),
      rejected: await count(`SELECT count(*) AS n FROM events WHERE customer_id IS NULL AND status = 'rejected' AND user_ref = $1`, [who.externalId]),
      reversals: await byCustomer('event_reversals'),
      simulations: await count(`SELECT count(*) AS n FROM simulations WHERE $1::uuid = ANY(customer_ids) OR explanations ? $1::text`, [who.id]),
      audiences: (await readFile(join(storageDir, file), 'utf8')).includes(who.id) ? 1 : 0,
      tombstone: await count(`SELECT count(*) AS n FROM customers WHERE id = $1`, [who.id]),
    };
  }

  it('answers in one transaction: a tombstone no lookup finds, the job, progress, assignments and waiting events gone, the audit entry, user.erased', async () => {
    const { tenant, customer } = await world();
    await ctx.db.query(`INSERT INTO webhooks (organization_id, url, event_types, secret) VALUES ($1, 'https://hooks.example.com/e', '{user.erased}', 's')`, [tenant.organizationId]);
    await ctx.db.query(
      `INSERT INTO events (organization_id, api_key_id, customer_id, user_ref, source, name, count, occurred_at, status) VALUES ($1, $2, $3, 'x', 'v1_async', 'visit', 1, now(), 'pending')`,
      [tenant.organizationId, tenant.apiKeyId, customer.id],
    );
    const answer = await erase.erase(tenant, { userId: customer.id });
    expect(answer).toEqual({ status: 'ok', erasure: { user_id: customer.id, erased_at: new Date(NOW).toISOString() } });

    const [row] = await ctx.db.query(`SELECT external_id, tags, attributes, available_points, lifetime_points, tier_id, erased_at FROM customers WHERE id = $1`, [customer.id]);
    expect(row).toEqual({ external_id: null, tags: [], attributes: {}, available_points: '0', lifetime_points: '0', tier_id: null, erased_at: new Date(NOW) });
    expect(await job(customer.id)).toEqual(expect.objectContaining({ organization_id: tenant.organizationId, step: ERASURE_STEPS[0].name }));
    expect(await count(`SELECT count(*) AS n FROM customer_progress WHERE customer_id = $1`, [customer.id])).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM events WHERE customer_id = $1 AND status = 'pending'`, [customer.id])).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM events WHERE customer_id = $1`, [customer.id])).toBe(3);
    expect(await ctx.db.query(`SELECT action, object_type, object_id, before, after FROM audit_log WHERE organization_id = $1`, [tenant.organizationId])).toEqual([
      { action: 'delete', object_type: 'user', object_id: customer.id, before: null, after: null },
    ]);
    // Deliveries about them not made yet are cancelled at once; the delivered one waits for the worker to lose its payload.
    expect(await ctx.db.query(`SELECT status FROM webhook_deliveries WHERE payload #>> '{data,user_id}' = $1 AND type <> 'user.erased' ORDER BY status`, [customer.id])).toEqual([
      { status: 'cancelled' },
      { status: 'delivered' },
    ]);
    const deliveries = await ctx.db.query(`SELECT payload FROM webhook_deliveries WHERE organization_id = $1 AND type = 'user.erased'`, [tenant.organizationId]);
    expect(deliveries.map((d: { payload: { data: unknown } }) => d.payload.data)).toEqual([{ user_id: customer.id, erased_at: new Date(NOW).toISOString() }]);

    // From the commit on the customer is not found: by id, by their old external id, and a second erasure.
    await expect(erase.erase(tenant, { userId: customer.id })).rejects.toEqual(AppError.notFound('user'));
    await expect(erase.erase(tenant, { externalId: customer.externalId })).rejects.toEqual(AppError.notFound('user'));
    await expect(ctx.app.get(V1EventsUseCase).execute(v1Request(tenant, { userId: customer.id }, { visit: 1 }))).rejects.toEqual(AppError.notFound('user'));
  });

  it('each step removes what it names and nothing of the later steps, and changes nothing when run again', async () => {
    const { tenant, customer, neighbour, file } = await world();
    const neighbourBefore = await rowsOf(neighbour, file);
    const participantsBefore = await count(
      `SELECT count(DISTINCT customer_id) AS n FROM campaign_participants WHERE campaign_id IN (SELECT id FROM campaigns WHERE organization_id = $1)`,
      [tenant.organizationId],
    );
    await erase.erase(tenant, { userId: customer.id });
    const erasure = await job(customer.id);
    const before = await rowsOf(customer, file);
    for (const [name, rows] of Object.entries(before)) expect({ name, rows: rows > 0 }).toEqual({ name, rows: true });

    for (const step of ERASURE_STEPS) {
      await runStep(step.name, erasure);
      const after = await rowsOf(customer, file);
      const names = ERASURE_STEPS.map((s) => s.name);
      // Everything up to this step is gone, everything after it is still there.
      for (const done of names.slice(0, names.indexOf(step.name) + 1)) expect({ done, rows: after[done as keyof typeof after] }).toEqual({ done, rows: 0 });
      for (const later of names.slice(names.indexOf(step.name) + 1)) expect({ later, left: after[later as keyof typeof after] > 0 }).toEqual({ later, left: true });
      // Run again: nothing more to do.
      const again = await runStep(step.name, erasure);
      expect(again).toEqual([0]);
      expect(await rowsOf(customer, file)).toEqual(after);
    }

    // The audience file keeps the neighbour's line alone; the simulation its totals.
    expect(await readFile(join(storageDir, file), 'utf8')).toBe(`external_id,user_id\n"a ""b""",${neighbour.id}\n`);
    expect(await ctx.db.query(`SELECT customers, events_replayed, customer_ids FROM simulations WHERE organization_id = $1`, [tenant.organizationId])).toEqual([
      { customers: 2, events_replayed: '6', customer_ids: [neighbour.id] },
    ]);
    // Distinct participants are counted as before (the customer's rows carry the alias), and the neighbour is untouched.
    expect(
      await count(`SELECT count(DISTINCT customer_id) AS n FROM campaign_participants WHERE campaign_id IN (SELECT id FROM campaigns WHERE organization_id = $1)`, [tenant.organizationId]),
    ).toBe(participantsBefore);
    expect(await count(`SELECT count(*) AS n FROM campaign_participants WHERE customer_id = $1`, [erasure.alias])).toBeGreaterThan(0);
    const neighbourAfter = await rowsOf(neighbour, file);
    // (The fold the first step ran also folded the neighbour's last visit.)
    expect({ ...neighbourAfter, analytics: 0 }).toEqual({ ...neighbourBefore, analytics: 0 });
    expect(neighbourAfter.analytics).toBeGreaterThan(neighbourBefore.analytics);
    expect(await count(`SELECT count(*) AS n FROM event_reversals WHERE organization_id = $1 AND customer_id IS NULL`, [tenant.organizationId])).toBe(1);
    const delivered = await ctx.db.query(`SELECT status, payload FROM webhook_deliveries WHERE organization_id = $1 AND payload->'data' IS NULL ORDER BY status`, [tenant.organizationId]);
    expect(delivered.map((d: { status: string; payload: object }) => [d.status, Object.keys(d.payload).sort()])).toEqual([
      ['cancelled', ['created_at', 'id', 'type']],
      ['delivered', ['created_at', 'id', 'type']],
    ]);
  });

  it('deletes the event log in batches, newest first', async () => {
    const tenant = await seedTenant(ctx.db);
    const customer = await seedCustomer(ctx.db, tenant);
    const events = ERASURE_BATCH + 500;
    // One event an hour back from now: they span several months, so several partitions.
    await ctx.db.query(
      `INSERT INTO events (organization_id, api_key_id, customer_id, user_ref, source, name, count, occurred_at, status)
       SELECT $1, $2, $3, 'x', 'v1', 'visit', 1, $4::timestamptz - g * interval '1 hour', 'processed' FROM generate_series(0, $5 - 1) g`,
      [tenant.organizationId, tenant.apiKeyId, customer.id, new Date(NOW).toISOString(), events],
    );
    await erase.erase(tenant, { userId: customer.id });
    const erasure = await job(customer.id);
    const step = ERASURE_STEPS.find((s) => s.name === 'events')!;
    expect(await step.batch(stepContext(erasure))).toBe(ERASURE_BATCH);
    // What is left is the oldest 500.
    const [left] = await ctx.db.query(`SELECT count(*)::int AS n, max(occurred_at) AS newest FROM events WHERE customer_id = $1`, [customer.id]);
    expect(left).toEqual({ n: 500, newest: new Date(NOW - ERASURE_BATCH * 3_600_000) });
    expect(await step.batch(stepContext(erasure))).toBe(500);
    expect(await count(`SELECT count(*) AS n FROM events WHERE customer_id = $1`, [customer.id])).toBe(0);
  });

  it('waits, before simulations and audience files, for a run of the organization that began before the erasure', async () => {
    const { tenant, customer, campaignId } = await world();
    await ctx.db.query(
      `INSERT INTO simulations (organization_id, campaign_id, status, range_from, range_to, customer_ids, explain, started_at) VALUES ($1, $2, 'running', now() - interval '1 year', now(), $3, true, $4)`,
      [tenant.organizationId, campaignId, [customer.id], new Date(NOW - 60_000)],
    );
    await erase.erase(tenant, { userId: customer.id });
    const erasure = await job(customer.id);
    expect(await runStep('simulations', erasure)).toEqual([null]);
    await ctx.db.query(`UPDATE simulations SET status = 'completed' WHERE organization_id = $1`, [tenant.organizationId]);
    expect(await runStep('simulations', erasure)).toEqual([0]);
    expect(await count(`SELECT count(*) AS n FROM simulations WHERE $1::uuid = ANY(customer_ids)`, [customer.id])).toBe(0);
  });
});
