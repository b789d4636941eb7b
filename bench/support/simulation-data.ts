/**
 * The simulation benchmark's data (issue #17): a draft campaign of four behaviors created through the management API,
 * then the organization's customers and their stored events written straight into the database with
 * `INSERT ... SELECT generate_series(...)`, never through the API (as history-data.ts writes its history).
 *
 * Every event is a pure function of its index i (0-based), so the rows need no reading back:
 * - its time: the i-th of E equal slices of the window (ids grow with time, as in a real log), jittered inside it;
 * - its customer: 70% of events go to any customer, 30% to the most active 5% (so that some customers have the
 *   dozens of events a streak or a store tour needs; about 10 events per customer on average);
 * - its name: purchase 35% (attributes store_id, amount, currency, sku), visit 35% (store_id), checkin 20%,
 *   app_open 10% (no behavior listens to it); each with a context (channel, app_name, device, app_version);
 * - a customer's stores are 5 of 60, fixed by the customer: a store tour of 3 different stores is reachable;
 * - status `processed`, source `v2`, the result the worker writes when no live campaign listens.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createCampaign } from './campaign.js';
import { monthsBetween } from './history-data.js';

export const DAY_MS = 86_400_000;
/** The window the events occurred in: the last WINDOW_DAYS days before the build. */
export const WINDOW_DAYS = 28;

/** The draft campaign's behaviors, as the management API takes them: a count goal, a unique goal, a streak, a period cap. */
export const SIMULATED_BEHAVIORS = [
  {
    name: 'Five purchases',
    points: 10,
    data: { max_times_achievable: 20 },
    goal_groups: [{ goals: [{ achievement: { name: 'purchase', event_count: 5, criteria: [{ field: 'amount', op: 'gte', value: 20 }] } }] }],
  },
  {
    name: 'Three stores',
    tags: 'explorer',
    points: 25,
    data: {},
    goal_groups: [{ goals: [{ achievement: { name: 'visit', event_count: 3, type: 'unique', unique_attribute: 'store_id' } }] }],
  },
  {
    name: 'Check-in streak',
    points: 15,
    data: {},
    goal_groups: [{ goals: [{ achievement: { name: 'checkin', event_count: 3, data: { consecutive: true } } }] }],
  },
  {
    name: 'Weekly visit',
    points: 3,
    data: { period: 604_800, max_times_achievable_per_period: 1 },
    goal_groups: [{ goals: [{ achievement: { name: 'visit', event_count: 1 } }] }],
  },
];

export interface SimulationSizes {
  customers: number;
  events: number;
}

export interface SimulationTenant {
  key: string;
  auth: string;
  organizationId: number;
}

/** A draft campaign with SIMULATED_BEHAVIORS, through the management API. */
export async function createDraftCampaign(url: string, tenant: SimulationTenant, name = 'Draft replay'): Promise<number> {
  const now = Date.now();
  const dates = { starts_at: new Date(now + DAY_MS).toISOString(), ends_at: new Date(now + 366 * DAY_MS).toISOString() };
  return createCampaign(url, tenant, { name, status: 'draft', ...dates }, SIMULATED_BEHAVIORS);
}

/**
 * The monthly partitions of `events` the window needs (a fresh database has the current month and three ahead; the
 * window reaches into the previous month), created as the service's maintenance would, named events_YYYY_MM.
 */
export async function ensurePartitions(db: pg.Pool, fromMs: number, toMs: number): Promise<string[]> {
  const created: string[] = [];
  for (const month of monthsBetween(fromMs, toMs)) {
    if ((await db.query(`SELECT 1 FROM pg_class WHERE relname = $1`, [month.name])).rowCount) continue;
    await db.query(`CREATE TABLE ${month.name} PARTITION OF events FOR VALUES FROM ('${month.from}') TO ('${month.to}')`);
    created.push(month.name);
  }
  return created;
}

const unit = (x: string) => `((hashint8((${x})::bigint)::float8 + 2147483648) / 4294967296)`;
const hash = (x: string) => `abs(hashint8((${x})::bigint)::bigint)`;

/**
 * Events i in [from, to) of `sizes.events` over [t0Ms, t0Ms + spanMs). `$1` is the organization, `$2` its api key id;
 * the customers' ids are read once per statement into an array ordered by external id, so that customer k is
 * `sim-<k, 7 digits>` (a uuid[] subscript is direct; a text[] one walks the array: 140 s instead of about 20 for a million).
 */
export function eventsStatement(sizes: SimulationSizes, t0Ms: number, spanMs: number, from: number, to: number): string {
  const active = Math.max(1, Math.floor(sizes.customers / 20));
  return `
    INSERT INTO events (organization_id, api_key_id, customer_id, user_ref, source, name, count, attributes, context, occurred_at, status, reason,
                        result, points_earned, attempts, created_at, processed_at, request_id, qualify)
    SELECT $1, $2, c.ids[x.k + 1], 'sim-' || lpad(x.k::text, 7, '0'), 'v2', y.kind, 1,
           CASE y.kind
             WHEN 'purchase' THEN jsonb_build_object('store_id', y.store, 'amount', round((5 + 195 * x.u)::numeric, 2), 'currency', 'USD',
                                                     'sku', 'SKU-' || lpad((${hash('g.i # 7919')} % 500)::text, 4, '0'))
             WHEN 'visit' THEN jsonb_build_object('store_id', y.store)
             ELSE '{}'::jsonb END,
           jsonb_build_object('channel', (ARRAY['app', 'pos', 'web'])[(x.h % 3) + 1], 'app_name', CASE WHEN x.h % 3 = 2 THEN 'web' ELSE 'mobile' END,
                              'device', (ARRAY['ios', 'android', 'web'])[(x.h % 3) + 1], 'app_version', '5.' || (x.h % 7) || '.1'),
           y.at, 'processed', 'no_listening_campaign', '{"state": "qualified", "points": 0, "completions": []}'::jsonb, 0, 1,
           y.at + interval '20 milliseconds', y.at + make_interval(secs => 0.05 + x.u), md5('sim-request-' || g.i)::uuid::text, false
      FROM generate_series(${from}::bigint, ${to - 1}::bigint) AS g(i)
     CROSS JOIN (SELECT array_agg(id ORDER BY external_id) AS ids FROM customers WHERE organization_id = $1) c
     CROSS JOIN LATERAL (SELECT CASE WHEN ${hash('g.i # 48271')} % 10 < 3 THEN ${hash('g.i # 16807')} % ${active}
                                     ELSE ${hash('g.i # 16807')} % ${sizes.customers} END AS k,
                                ${hash('g.i # 69621')} % 100 AS r, ${hash('g.i # 911')} AS h, ${unit('g.i # 39119')} AS u) x
     CROSS JOIN LATERAL (SELECT CASE WHEN x.r < 35 THEN 'purchase' WHEN x.r < 70 THEN 'visit' WHEN x.r < 90 THEN 'checkin' ELSE 'app_open' END AS kind,
                                'store-' || lpad(((x.k * 7 + (x.h % 5) * 13) % 60 + 1)::text, 3, '0') AS store,
                                to_timestamp((${t0Ms}::float8 + ${spanMs}::float8 * (g.i + 0.05 + 0.9 * x.u) / ${sizes.events}) / 1000.0) AS at) y`;
}

export interface SimulationData {
  /** The window the events occurred in: the simulation's range. */
  from: Date;
  to: Date;
  partitionsCreated: string[];
  buildSeconds: number;
  steps: Array<{ step: string; seconds: number }>;
  /** Rows as stored (exact counts). */
  customers: number;
  events: number;
  eventsInDefaultPartition: number;
  eventsBytes: number;
}

/** Writes the customers and events of `sizes` for the tenant, on `jobs` connections; VACUUM ANALYZE and a checkpoint after. */
export async function buildSimulationData(
  db: pg.Pool,
  tenant: SimulationTenant,
  sizes: SimulationSizes,
  { jobs = 2, log = (line: string) => process.stderr.write(`${line}\n`) }: { jobs?: number; log?: (line: string) => void } = {},
): Promise<SimulationData> {
  const steps: SimulationData['steps'] = [];
  const timed = async <T>(step: string, run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    log(`  ${step}...`);
    const result = await run();
    steps.push({ step, seconds: (performance.now() - started) / 1000 });
    return result;
  };
  const began = performance.now();
  // The range ends now (whole seconds); the events stop a minute before its end and start right after its beginning.
  const to = new Date(Math.ceil(Date.now() / 1000) * 1000);
  const from = new Date(to.getTime() - WINDOW_DAYS * DAY_MS);
  const spanMs = to.getTime() - from.getTime() - 60_000;
  const apiKeyId = Number((await db.query(`SELECT id FROM api_keys WHERE key = $1`, [tenant.key])).rows[0].id);
  const partitionsCreated = await timed('partitions', () => ensurePartitions(db, from.getTime(), to.getTime()));
  await timed(`${sizes.customers.toLocaleString('en-US')} customers`, () =>
    db.query(
      `INSERT INTO customers (organization_id, external_id, time_zone, division_id, tags, attributes)
       SELECT $1, 'sim-' || lpad(g::text, 7, '0'), (ARRAY['America/New_York', 'America/Chicago', 'America/Los_Angeles', 'Europe/London'])[(g % 4) + 1], d.id,
              CASE WHEN g % 10 = 0 THEN '{vip}'::text[] ELSE '{}'::text[] END,
              jsonb_build_object('plan', (ARRAY['bronze', 'silver', 'gold'])[(g % 3) + 1], 'signup_channel', (ARRAY['web', 'app', 'store'])[(g % 3) + 1])
         FROM generate_series(0, $2::int - 1) g, divisions d WHERE d.organization_id = $1 AND d.parent_id IS NULL`,
      [tenant.organizationId, sizes.customers],
    ),
  );
  await db.query('ANALYZE customers');
  const chunk = Math.max(1, Math.ceil(sizes.events / 20));
  const tasks: Array<[number, number]> = [];
  for (let a = 0; a < sizes.events; a += chunk) tasks.push([a, Math.min(sizes.events, a + chunk)]);
  await timed(`${sizes.events.toLocaleString('en-US')} events (${jobs} connections)`, async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(jobs, tasks.length) }, async () => {
        const client = await db.connect();
        try {
          await client.query('SET synchronous_commit = off');
          while (next < tasks.length) {
            const [a, b] = tasks[next++];
            await client.query(eventsStatement(sizes, from.getTime(), spanMs, a, b), [tenant.organizationId, apiKeyId]);
          }
        } finally {
          client.release();
        }
      }),
    );
  });
  await timed('VACUUM ANALYZE, CHECKPOINT', async () => {
    await db.query('VACUUM (ANALYZE) customers');
    await db.query('VACUUM (ANALYZE) events');
    await db.query('CHECKPOINT');
  });
  const counts = (
    await db.query(
      `SELECT (SELECT count(*) FROM customers WHERE organization_id = $1)::int AS customers,
              (SELECT count(*) FROM events WHERE organization_id = $1)::int AS events,
              (SELECT count(*) FROM events_default)::int AS in_default,
              (SELECT sum(pg_total_relation_size(relid))::bigint FROM pg_partition_tree('events'::regclass) WHERE isleaf) AS bytes`,
      [tenant.organizationId],
    )
  ).rows[0];
  if (counts.in_default > 0) throw new Error(`${counts.in_default} events landed in events_default: a month's partition is missing`);
  return {
    from,
    to,
    partitionsCreated,
    buildSeconds: (performance.now() - began) / 1000,
    steps,
    customers: counts.customers,
    events: counts.events,
    eventsInDefaultPartition: counts.in_default,
    eventsBytes: Number(counts.bytes),
  };
}
