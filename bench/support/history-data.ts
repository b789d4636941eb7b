/**
 * The history benchmark's data: one organization (created through the real API: organization, api key, a live
 * campaign and five behaviors), then its customers, their events over 12 months, their progress rows and their points
 * ledger written straight into the database with `INSERT ... SELECT generate_series(...)`, never through the API.
 *
 * Every row is a pure function of its index, so the rows agree with each other the way the service would have
 * written them, and any part can be written again (or put back after a run) without reading the rest:
 * - customer c (0-based) has n(c) = E / N events (one more for the first E % N customers); its j-th event is event
 *   i = j·N + c (id = base + i), so ids grow with time as in a real log;
 * - the event's name follows a 10-step pattern from the customer's offset: 5 visits, 3 logins, 2 purchases in every
 *   10 events; its time is spread evenly over the 12 months in j order, with jitter;
 * - each event credits its behavior twice (the behavior's points and its goal's points: two ledger rows, as the engine
 *   writes them), so the ledger has 2 rows per event and sums to the customer's available (= lifetime) points;
 * - each customer has one progress row per behavior (5 per customer), in the state the engine leaves after those
 *   events (achieved counts, the unique stores of the current cycle, the throttle's last time, the streak's last day).
 * src/engine/types.ts (BehaviorProgress) is the state's format; the rows written through the API in the same shapes
 * were read back to check it (see docs/performance.md, "History at scale").
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';

/** The generator's version: a kept database built by another version is built again. */
export const GENERATOR_VERSION = 4;

export const PATTERN = ['visit', 'login', 'visit', 'purchase', 'visit', 'visit', 'login', 'purchase', 'visit', 'login'] as const;
export type Kind = (typeof PATTERN)[number];
const KINDS: Kind[] = ['visit', 'login', 'purchase'];
const PER_CYCLE: Record<Kind, number> = { visit: 5, login: 3, purchase: 2 };
/** Points of the behavior and of its goal, per event kind (every event completes its count-1 behavior). */
export const POINTS: Record<Kind, number> = { visit: 1, login: 1, purchase: 5 };
export const TIME_ZONES = ['America/New_York', 'America/Chicago', 'America/Los_Angeles', 'Europe/London'];
const DAY_MS = 86_400_000;
export const WINDOW_DAYS = 365;

/** The campaign's five behaviors, as the management API takes them. */
export const HISTORY_BEHAVIORS = [
  { key: 'visit', name: 'Visit', points: 1, data: {}, goal_groups: [{ goals: [{ achievement: { name: 'visit', event_count: 1, points: 1 } }] }] },
  {
    key: 'threeStores',
    name: 'Three stores a week',
    tags: 'explorer',
    points: 0,
    data: { period: 604800, max_times_achievable_per_period: 1 },
    goal_groups: [{ goals: [{ achievement: { name: 'visit', event_count: 3, type: 'unique', unique_attribute: 'store_id' } }] }],
  },
  {
    key: 'purchase',
    name: 'Purchase',
    points: 5,
    data: {},
    goal_groups: [{ goals: [{ achievement: { name: 'purchase', event_count: 1, points: 5, criteria: [{ field: 'amount', op: 'gte', value: 1 }] } }] }],
  },
  {
    key: 'dailyLogin',
    name: 'Daily login',
    points: 1,
    data: {},
    goal_groups: [{ goals: [{ achievement: { name: 'login', event_count: 1, points: 1, data: { min_time_between_events: 86400 } } }] }],
  },
  {
    key: 'loginStreak',
    name: 'Login streak',
    tags: 'regular',
    points: 20,
    data: {},
    goal_groups: [{ goals: [{ achievement: { name: 'login', event_count: 7, data: { consecutive: true } } }] }],
  },
] as const;
export type BehaviorKey = (typeof HISTORY_BEHAVIORS)[number]['key'];

export interface HistorySizes {
  customers: number;
  events: number;
}

export interface HistoryTenant {
  organizationId: number;
  apiKeyId: number;
  key: string;
  secret: string;
  campaignId: number;
  rootDivisionId: number;
  behaviorIds: Record<BehaviorKey, number>;
  goalIds: Record<BehaviorKey, number>;
}

/** What fixes every generated row: sizes, tenant, time window and the first ids. */
export interface HistoryPlan {
  sizes: HistorySizes;
  tenant: HistoryTenant;
  /** Start of the 12 months (epoch ms) and their length. */
  t0Ms: number;
  spanMs: number;
  eventBase: number;
  ledgerBase: number;
}

/** Progress rows per customer and ledger rows per event: fixed by the campaign above. */
export const PROGRESS_PER_CUSTOMER = HISTORY_BEHAVIORS.length;
export const LEDGER_PER_EVENT = 2;

export function expectedRows(sizes: HistorySizes): Record<'customers' | 'customer_progress' | 'events' | 'points_ledger', number> {
  return { customers: sizes.customers, customer_progress: sizes.customers * PROGRESS_PER_CUSTOMER, events: sizes.events, points_ledger: sizes.events * LEDGER_PER_EVENT };
}

// ---------------------------------------------------------------------------------------------------------------
// The pattern's tables, as SQL array literals (1-based in SQL).

/** [offset][r]: events of `kind` among the first r steps of the pattern read from `offset` (r = 0..10). */
function prefixTable(kind: Kind): number[][] {
  return Array.from({ length: 10 }, (_, o) => {
    const row = [0];
    for (let r = 0; r < 10; r += 1) row.push(row[r] + (PATTERN[(o + r) % 10] === kind ? 1 : 0));
    return row;
  });
}

/** [offset][m]: the step (0..9) of the m-th event of `kind` in the pattern read from `offset`. */
function positionTable(kind: Kind): number[][] {
  return Array.from({ length: 10 }, (_, o) => Array.from({ length: 10 }, (_, r) => r).filter((r) => PATTERN[(o + r) % 10] === kind));
}

const intArray = (rows: number[][]) => `'{${rows.map((r) => `{${r.join(',')}}`).join(',')}}'::int[]`;

/** The same functions in TypeScript, for the load generator (the next event of a customer) and the checks. */
export function eventsOf(sizes: HistorySizes, c: number): number {
  return Math.floor(sizes.events / sizes.customers) + (c < sizes.events % sizes.customers ? 1 : 0);
}
export function countBefore(kind: Kind, c: number, j: number): number {
  return PER_CYCLE[kind] * Math.floor(j / 10) + prefixTable(kind)[c % 10][j % 10];
}
export function kindAt(c: number, j: number): Kind {
  return PATTERN[(c + j) % 10];
}
export function storeName(c: number, m: number): string {
  return `store-${String(((c * 7 + m * 13) % 60) + 1).padStart(3, '0')}`;
}
export function externalId(c: number): string {
  return `cust-${c}`;
}

/**
 * SQL expressions of the generator over integer columns named in the call. Each is a pure expression, so the
 * events, the ledger, the customers and their progress all compute the same values.
 */
class Sql {
  constructor(private readonly plan: HistoryPlan) {}

  private get n() {
    return this.plan.sizes.customers;
  }

  /** Events of customer c. */
  count(c: string): string {
    const { customers, events } = this.plan.sizes;
    return `(${Math.floor(events / customers)} + CASE WHEN ${c} < ${events % customers} THEN 1 ELSE 0 END)`;
  }
  kind(c: string, j: string): string {
    return `('{${PATTERN.join(',')}}'::text[])[((${c} + ${j}) % 10) + 1]`;
  }
  /** Events of `kind` before the customer's j-th (j = its event count: all of them). */
  before(kind: Kind, c: string, j: string): string {
    return `(${PER_CYCLE[kind]} * ((${j}) / 10) + (${intArray(prefixTable(kind))})[(${c} % 10) + 1][((${j}) % 10) + 1])`;
  }
  /** j of the customer's m-th event of `kind`. */
  position(kind: Kind, c: string, m: string): string {
    return `(10 * ((${m}) / ${PER_CYCLE[kind]}) + (${intArray(positionTable(kind))})[(${c} % 10) + 1][((${m}) % ${PER_CYCLE[kind]}) + 1])`;
  }
  /** A signed 32-bit hash of an integer, as bigint (abs() of it cannot overflow). */
  hash(x: string): string {
    return `hashint8((${x})::bigint)::bigint`;
  }
  /** A number in [0, 1) from an integer, the same every time. */
  unit(x: string): string {
    return `((hashint8((${x})::bigint)::float8 + 2147483648) / 4294967296)`;
  }
  /** Epoch ms of the customer's j-th event: the j-th of n(c) equal slices of the 12 months, jittered inside it. */
  atMs(c: string, j: string): string {
    const { t0Ms, spanMs } = this.plan;
    return `(${t0Ms}::bigint + floor(${spanMs}::float8 * ((${j}) + 0.02 + 0.96 * ${this.unit(`(${j})::bigint * ${this.n} + ${c}`)}) / ${this.count(c)})::bigint)`;
  }
  at(msExpr: string): string {
    return `to_timestamp((${msExpr}) / 1000.0)`;
  }
  customerId(c: string): string {
    return `md5('history-' || ${c})::uuid`;
  }
  timeZone(c: string): string {
    return `('{${TIME_ZONES.join(',')}}'::text[])[(${c} % ${TIME_ZONES.length}) + 1]`;
  }
  store(c: string, m: string): string {
    return `('store-' || lpad((((${c}) * 7 + (${m}) * 13) % 60 + 1)::text, 3, '0'))`;
  }
  /** 30% of visits and logins came through V2 (batches processed by a worker); purchases through V1. */
  isV2(kind: string, i: string): string {
    return `(${kind} <> 'purchase' AND abs(${this.hash(`(${i})::bigint # 48271`)}) % 10 < 3)`;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The statements.

/** Events i in [from, to): the rows the service wrote for them (processed, with their result and points). */
export function eventsStatement(plan: HistoryPlan, from: number, to: number): string {
  const s = new Sql(plan);
  const { tenant } = plan;
  const b = tenant.behaviorIds;
  const completion = (behavior: number, achieved: string) => `jsonb_build_object('achieved', ${achieved}, 'behavior_id', ${behavior}, 'campaign_id', ${tenant.campaignId})`;
  return `
    INSERT INTO events (id, organization_id, api_key_id, customer_id, user_ref, source, transaction_id, name, count, attributes, context,
                        division_id, campaign_id, occurred_at, status, reason, result, points_earned, attempts, created_at, processed_at,
                        request_id, qualify)
    SELECT ${plan.eventBase} + g.i, ${tenant.organizationId}, ${tenant.apiKeyId}, ${s.customerId('x.c')}, 'cust-' || x.c, y.source,
           -- Idempotency keys as clients make them: order numbers and UUIDs, in no particular order.
           CASE WHEN y.kind = 'purchase' THEN 'ord_' || substr(md5('order-' || g.i), 1, 20) WHEN y.source = 'v2' THEN md5('event-' || g.i)::uuid::text END,
           y.kind, 1,
           CASE WHEN y.source = 'v2' THEN '{}'::jsonb
                WHEN y.kind = 'visit' THEN jsonb_build_object('store_id', y.store)
                WHEN y.kind = 'purchase' THEN jsonb_build_object('amount', round((10 + 190 * y.u)::numeric, 2), 'currency', 'USD', 'sku', 'SKU-' || lpad((abs(y.h) % 500)::text, 4, '0'))
                ELSE '{}'::jsonb END,
           CASE WHEN y.kind = 'visit' AND y.source = 'v2' THEN jsonb_build_object('store_id', y.store, 'channel', y.channel)
                WHEN y.kind = 'login' THEN jsonb_build_object('device', (ARRAY['ios', 'android', 'web'])[(abs(y.h) % 3) + 1])
                ELSE jsonb_build_object('channel', y.channel) END,
           NULL, NULL, y.at, 'processed', NULL,
           jsonb_build_object('state', 'qualified', 'points', y.points, 'completions',
             CASE y.kind
               WHEN 'visit' THEN CASE WHEN (y.m + 1) % 3 = 0
                                      THEN jsonb_build_array(${completion(b.visit, 'y.m + 1')}, ${completion(b.threeStores, '(y.m + 1) / 3')})
                                      ELSE jsonb_build_array(${completion(b.visit, 'y.m + 1')}) END
               WHEN 'purchase' THEN jsonb_build_array(${completion(b.purchase, 'y.m + 1')})
               ELSE jsonb_build_array(${completion(b.dailyLogin, 'y.m + 1')}) END),
           y.points, CASE WHEN y.source = 'v2' THEN 1 ELSE 0 END, y.at, y.processed_at,
           md5('request-' || g.i)::uuid::text, false
      FROM generate_series(${from}::bigint, ${to - 1}::bigint) AS g(i)
      CROSS JOIN LATERAL (SELECT (g.i % ${plan.sizes.customers})::int AS c, (g.i / ${plan.sizes.customers})::int AS j) x
      CROSS JOIN LATERAL (SELECT k.kind, k.source, k.m, k.u, k.h, k.at,
                                 k.at + CASE WHEN k.source = 'v2' THEN make_interval(secs => 0.05 + 2 * k.u) ELSE interval '0' END AS processed_at,
                                 ${s.store('x.c', 'k.m')} AS store,
                                 CASE WHEN k.h % 2 = 0 THEN 'app' ELSE 'pos' END AS channel,
                                 2 * CASE k.kind WHEN 'purchase' THEN ${POINTS.purchase} WHEN 'visit' THEN ${POINTS.visit} ELSE ${POINTS.login} END AS points
                            FROM (SELECT z.kind, CASE WHEN ${s.isV2('z.kind', 'g.i')} THEN 'v2' ELSE 'v1' END AS source,
                                         CASE z.kind WHEN 'visit' THEN ${s.before('visit', 'x.c', 'x.j')} WHEN 'login' THEN ${s.before('login', 'x.c', 'x.j')}
                                                     ELSE ${s.before('purchase', 'x.c', 'x.j')} END AS m,
                                         ${s.unit('g.i # 16807')} AS u, ${s.hash('g.i # 69621')} AS h,
                                         ${s.at(s.atMs('x.c', 'x.j'))} AS at
                                    FROM (SELECT ${s.kind('x.c', 'x.j')} AS kind) z) k) y`;
}

/** Ledger rows of events i in [from, to): per event its goal's credit, then its behavior's (the engine's order). */
export function ledgerStatement(plan: HistoryPlan, from: number, to: number): string {
  const s = new Sql(plan);
  const { tenant } = plan;
  const behavior = (kind: string) =>
    `CASE ${kind} WHEN 'visit' THEN ${tenant.behaviorIds.visit} WHEN 'purchase' THEN ${tenant.behaviorIds.purchase} ELSE ${tenant.behaviorIds.dailyLogin} END`;
  const goal = (kind: string) => `CASE ${kind} WHEN 'visit' THEN ${tenant.goalIds.visit} WHEN 'purchase' THEN ${tenant.goalIds.purchase} ELSE ${tenant.goalIds.dailyLogin} END`;
  return `
    INSERT INTO points_ledger (id, organization_id, customer_id, event_id, amount, reason, source, created_at, occurred_at)
    SELECT ${plan.ledgerBase} + 2 * g.i + r.k, ${tenant.organizationId}, ${s.customerId('x.c')}, ${plan.eventBase} + g.i,
           CASE y.kind WHEN 'purchase' THEN ${POINTS.purchase} WHEN 'visit' THEN ${POINTS.visit} ELSE ${POINTS.login} END,
           CASE r.k WHEN 0 THEN 'goal' ELSE 'behavior' END,
           jsonb_build_object('goal_id', CASE r.k WHEN 0 THEN ${goal('y.kind')} END, 'offer_id', NULL, 'behavior_id', ${behavior('y.kind')},
                              'campaign_id', ${tenant.campaignId}),
           y.at + CASE WHEN ${s.isV2('y.kind', 'g.i')} THEN make_interval(secs => 0.05 + 2 * ${s.unit('g.i # 16807')}) ELSE interval '0' END,
           y.at
      FROM generate_series(${from}::bigint, ${to - 1}::bigint) AS g(i)
      CROSS JOIN LATERAL (SELECT (g.i % ${plan.sizes.customers})::int AS c, (g.i / ${plan.sizes.customers})::int AS j) x
      CROSS JOIN LATERAL (SELECT ${s.kind('x.c', 'x.j')} AS kind, ${s.at(s.atMs('x.c', 'x.j'))} AS at) y
      CROSS JOIN (VALUES (0), (1)) AS r(k)`;
}

/**
 * Per customer (c from `source`, a FROM item with a column c): its row's values and its five progress states, as
 * the service leaves them after the customer's generated events.
 */
function customerFacts(plan: HistoryPlan, source: string): string {
  const s = new Sql(plan);
  const g = plan.tenant.goalIds;
  const goal = (count: string, pivots: string, lastDay: string, countedAt: string) =>
    `jsonb_build_object('count', ${count}, 'pivots', ${pivots}, 'lastDay', ${lastDay}, 'completed', false, 'countedAt', ${countedAt})`;
  const state = (achieved: string, completions: string, goalKey: number, goalState: string) =>
    `jsonb_build_object('goals', jsonb_build_object('${goalKey}', ${goalState}), 'window', NULL, 'achieved', ${achieved}, 'completions', ${completions})`;
  const EMPTY = `jsonb_build_object('goals', '{}'::jsonb, 'window', NULL, 'achieved', 0, 'completions', '[]'::jsonb)`;
  const ms = (kind: Kind, m: string) => s.atMs('f.c', s.position(kind, 'f.c', m));
  return `
    SELECT f.c, ${s.customerId('f.c')} AS id, 'cust-' || f.c AS external_id, f.tz, f.n, f.visits, f.logins, f.purchases,
           2 * (${POINTS.visit} * f.visits + ${POINTS.login} * f.logins + ${POINTS.purchase} * f.purchases) AS points,
           CASE WHEN f.visits >= 3 THEN '{explorer}'::text[] ELSE '{}'::text[] END AS tags,
           jsonb_build_object('plan', (ARRAY['bronze', 'silver', 'gold'])[(abs(${s.hash('f.c::bigint # 911')}) % 3) + 1],
                              'signup_channel', (ARRAY['web', 'app', 'store'])[(abs(${s.hash('f.c::bigint # 577')}) % 3) + 1]) AS attributes,
           to_timestamp((${plan.t0Ms} - (abs(${s.hash('f.c::bigint # 313')}) * 4 % ${200 * DAY_MS})) / 1000.0) AS created_at,
           ${s.at(s.atMs('f.c', 'f.n - 1'))} AS updated_at,
           -- Visit: count 1, no cap: achieved = visits, the cycle reset after each.
           CASE WHEN f.visits = 0 THEN ${EMPTY} ELSE ${state('f.visits', `'[]'::jsonb`, g.visit, goal('0', `'[]'::jsonb`, 'NULL', `'[]'::jsonb`))} END AS visit_state,
           CASE WHEN f.visits = 0 THEN NULL ELSE ${s.at(ms('visit', 'f.visits - 1'))} END AS visit_at,
           -- Three stores a week: unique store_id, 3 per cycle (a customer's stores differ within a cycle), 1 per week:
           -- the stores of the current cycle; the last completion kept (the weekly cap looks back 7 days).
           CASE WHEN f.visits = 0 THEN ${EMPTY} ELSE ${state(
             'f.visits / 3',
             `CASE WHEN f.visits >= 3 THEN jsonb_build_array(${ms('visit', '3 * (f.visits / 3) - 1')}) ELSE '[]'::jsonb END`,
             g.threeStores,
             goal(
               'f.visits % 3',
               `CASE f.visits % 3 WHEN 0 THEN '[]'::jsonb WHEN 1 THEN jsonb_build_array(${s.store('f.c', 'f.visits - 1')})
                     ELSE jsonb_build_array(${s.store('f.c', 'f.visits - 2')}, ${s.store('f.c', 'f.visits - 1')}) END`,
               'NULL',
               `'[]'::jsonb`,
             ),
           )} END AS three_stores_state,
           -- Purchase: count 1 (amount >= 1), no cap.
           CASE WHEN f.purchases = 0 THEN ${EMPTY} ELSE ${state('f.purchases', `'[]'::jsonb`, g.purchase, goal('0', `'[]'::jsonb`, 'NULL', `'[]'::jsonb`))} END AS purchase_state,
           CASE WHEN f.purchases = 0 THEN NULL ELSE ${s.at(ms('purchase', 'f.purchases - 1'))} END AS purchase_at,
           -- Daily login: count 1, throttled to one a day: the last counted time kept.
           CASE WHEN f.logins = 0 THEN ${EMPTY} ELSE ${state('f.logins', `'[]'::jsonb`, g.dailyLogin, goal('0', `'[]'::jsonb`, 'NULL', `jsonb_build_array(${ms('login', 'f.logins - 1')})`))} END AS daily_login_state,
           CASE WHEN f.logins = 0 THEN NULL ELSE ${s.at(ms('login', 'f.logins - 1'))} END AS login_at,
           -- Login streak: 7 days in a row; logins weeks apart restart it at 1 on the last login's local day.
           CASE WHEN f.logins = 0 THEN ${EMPTY} ELSE ${state(
             '0',
             `'[]'::jsonb`,
             g.loginStreak,
             goal('1', `'[]'::jsonb`, `to_char(${s.at(ms('login', 'f.logins - 1'))} AT TIME ZONE f.tz, 'YYYY-MM-DD')`, `'[]'::jsonb`),
           )} END AS login_streak_state
      FROM (SELECT src.c, ${s.timeZone('src.c')} AS tz, ${s.count('src.c')} AS n,
                   ${s.before('visit', 'src.c', s.count('src.c'))} AS visits, ${s.before('login', 'src.c', s.count('src.c'))} AS logins,
                   ${s.before('purchase', 'src.c', s.count('src.c'))} AS purchases
              FROM ${source}) f`;
}

export function customersStatement(plan: HistoryPlan, from: number, to: number): string {
  const t = plan.tenant;
  return `
    INSERT INTO customers (id, organization_id, external_id, time_zone, division_id, tags, attributes, available_points, lifetime_points, tier_id,
                           qualified_campaign_ids, completed_campaign_ids, created_at, updated_at)
    SELECT f.id, ${t.organizationId}, f.external_id, f.tz, ${t.rootDivisionId}, f.tags, f.attributes, f.points, f.points, NULL, '{}', '{}', f.created_at, f.updated_at
      FROM (${customerFacts(plan, `generate_series(${from}, ${to - 1}) AS src(c)`)}) f`;
}

/** The five progress rows of each customer of `source`; with `upsert`, rows already there are put back. */
export function progressStatement(plan: HistoryPlan, source: string, upsert = false): string {
  const b = plan.tenant.behaviorIds;
  return `
    INSERT INTO customer_progress (customer_id, behavior_id, state, achieved, updated_at)
    SELECT f.id, p.behavior_id, p.state, (p.state->>'achieved')::int, coalesce(p.at, f.created_at)
      FROM (${customerFacts(plan, source)}) f
     CROSS JOIN LATERAL (VALUES (${b.visit}, f.visit_state, f.visit_at), (${b.threeStores}, f.three_stores_state, f.visit_at),
                                (${b.purchase}, f.purchase_state, f.purchase_at), (${b.dailyLogin}, f.daily_login_state, f.login_at),
                                (${b.loginStreak}, f.login_streak_state, f.login_at)) AS p(behavior_id, state, at)
    ${upsert ? 'ON CONFLICT (customer_id, behavior_id) DO UPDATE SET state = EXCLUDED.state, achieved = EXCLUDED.achieved, updated_at = EXCLUDED.updated_at' : ''}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Building.

const TABLES = ['customers', 'customer_progress', 'events', 'points_ledger'] as const;
type Table = (typeof TABLES)[number];

interface SavedDefinitions {
  constraints: Array<{ table: string; name: string; definition: string; type: string }>;
  indexes: Array<{ name: string; definition: string }>;
}

/**
 * Drops the keys, unique constraints, foreign keys and indexes of the bulk tables (and foreign keys that point at
 * them), answering their definitions so that restoreDefinitions() puts every one back as it was.
 */
async function dropDefinitions(db: pg.ClientBase, tables: string[]): Promise<SavedDefinitions> {
  const constraints = (
    await db.query(
      `SELECT c.conrelid::regclass::text AS table, c.conname AS name, pg_get_constraintdef(c.oid) AS definition, c.contype AS type
         FROM pg_constraint c
        WHERE c.contype IN ('p', 'u', 'f', 'x') AND c.conparentid = 0
          AND (c.conrelid = ANY($1::regclass[]) OR c.confrelid = ANY($1::regclass[]))`,
      [tables],
    )
  ).rows as SavedDefinitions['constraints'];
  const indexes = (
    await db.query(
      `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
         FROM pg_index i
        WHERE i.indrelid = ANY($1::regclass[])
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.contype IN ('p', 'u', 'x'))
          AND NOT EXISTS (SELECT 1 FROM pg_inherits h WHERE h.inhrelid = i.indexrelid)`,
      [tables],
    )
  ).rows as SavedDefinitions['indexes'];
  for (const c of constraints.filter((c) => c.type === 'f')) await db.query(`ALTER TABLE ${c.table} DROP CONSTRAINT "${c.name}"`);
  for (const c of constraints.filter((c) => c.type !== 'f')) await db.query(`ALTER TABLE ${c.table} DROP CONSTRAINT "${c.name}"`);
  for (const i of indexes) await db.query(`DROP INDEX ${i.name}`);
  return { constraints, indexes };
}

/** The DDL that puts the definitions back: keys and unique constraints, then indexes, then foreign keys. */
function restoreStatements(saved: SavedDefinitions): Array<{ label: string; table: string; sql: string }> {
  const add = (c: SavedDefinitions['constraints'][number]) => ({ label: `${c.table}: ${c.name}`, table: c.table, sql: `ALTER TABLE ${c.table} ADD CONSTRAINT "${c.name}" ${c.definition}` });
  return [
    ...saved.constraints.filter((c) => c.type !== 'f').map(add),
    // A partitioned table's index reads `ON ONLY events`: created so, it would stay invalid and its partitions without it.
    ...saved.indexes.map((i) => ({ label: i.name, table: /ON (?:ONLY )?(\S+)/.exec(i.definition)?.[1] ?? '', sql: i.definition.replace(' ON ONLY ', ' ON ') })),
    ...saved.constraints.filter((c) => c.type === 'f').map(add),
  ];
}

export interface BuildStep {
  step: string;
  seconds: number;
}

export interface BuildOptions {
  /** `drop`: drop keys, indexes and foreign keys, load, create them again; `keep`: load with them in place. */
  indexes: 'drop' | 'keep';
  /** Connections writing at once. */
  jobs: number;
  log: (line: string) => void;
}

/** Runs `tasks` on `jobs` connections of the pool (each connection with the build's session settings). */
async function runParallel(pool: pg.Pool, jobs: number, tasks: Array<{ label: string; sql: string; values?: unknown[] }>, log: (line: string) => void): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(jobs, tasks.length) }, async () => {
      const client = await pool.connect();
      try {
        await client.query(`SET synchronous_commit = off`);
        await client.query(`SET maintenance_work_mem = '512MB'`);
        if (jobs > 1) await client.query(`SET max_parallel_maintenance_workers = 0`);
        while (next < tasks.length) {
          const task = tasks[next++];
          const started = performance.now();
          await client.query(task.sql, task.values);
          log(`  ${task.label} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
        }
      } finally {
        client.release();
      }
    }),
  );
}

/** Splits [0, total) into ranges of at most `size`. */
function ranges(total: number, size: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let from = 0; from < total; from += size) out.push([from, Math.min(total, from + size)]);
  return out;
}

/**
 * When `events` is partitioned (another branch partitions it by month), the partitions its 12 months need, named
 * events_YYYY_MM, created ahead as the service's maintenance would; months an existing partition covers are skipped.
 */
async function ensureMonthlyPartitions(db: pg.ClientBase, fromMs: number, toMs: number, log: (line: string) => void): Promise<void> {
  if (!(await isPartitioned(db, 'events'))) return;
  for (const month of monthsBetween(fromMs, toMs)) {
    const exists = (await db.query(`SELECT 1 FROM pg_class WHERE relname = $1`, [month.name])).rowCount;
    if (exists) continue;
    try {
      await db.query(`CREATE TABLE ${month.name} PARTITION OF events FOR VALUES FROM ('${month.from}') TO ('${month.to}')`);
      log(`  partition ${month.name} created`);
    } catch (error) {
      log(`  partition ${month.name} not created: ${(error as Error).message}`);
    }
  }
}

export function monthsBetween(fromMs: number, toMs: number): Array<{ name: string; from: string; to: string }> {
  const out: Array<{ name: string; from: string; to: string }> = [];
  const d = new Date(fromMs);
  for (let y = d.getUTCFullYear(), m = d.getUTCMonth(); Date.UTC(y, m, 1) <= toMs; m === 11 ? ((y += 1), (m = 0)) : (m += 1)) {
    const next = m === 11 ? [y + 1, 0] : [y, m + 1];
    const iso = (yy: number, mm: number) => `${yy}-${String(mm + 1).padStart(2, '0')}-01 00:00:00+00`;
    out.push({ name: `events_${y}_${String(m + 1).padStart(2, '0')}`, from: iso(y, m), to: iso(next[0], next[1]) });
  }
  return out;
}

/**
 * The idempotency keys of the events i in [from, to) that carry one, as the service claims them with the event
 * (`event_transactions`, where the event log is partitioned; none where it is not).
 */
export function transactionsStatement(plan: HistoryPlan, from: number, to: number): string {
  return `
    INSERT INTO event_transactions (api_key_id, transaction_id, occurred_at, created_at)
    SELECT api_key_id, transaction_id, occurred_at, created_at FROM events
     WHERE transaction_id IS NOT NULL AND id BETWEEN ${plan.eventBase + from} AND ${plan.eventBase + to - 1}`;
}

/** Whether the schema keeps idempotency keys in a table of their own (the partitioned event log). */
async function hasTransactionsTable(db: pg.ClientBase | pg.Pool): Promise<boolean> {
  return (await db.query(`SELECT to_regclass('event_transactions') IS NOT NULL AS present`)).rows[0].present as boolean;
}

/** The bulk tables, with the idempotency keys' where the schema has it. */
async function bulkTables(db: pg.ClientBase | pg.Pool): Promise<string[]> {
  return [...TABLES, ...((await hasTransactionsTable(db)) ? ['event_transactions'] : [])];
}

export async function isPartitioned(db: pg.ClientBase | pg.Pool, table: string): Promise<boolean> {
  return ((await db.query(`SELECT 1 FROM pg_partitioned_table WHERE partrelid = to_regclass($1)`, [table])).rowCount ?? 0) > 0;
}

/** Writes the plan's rows into a database that has the tenant and nothing else of the organization. Answers the steps' times. */
export async function buildHistory(databaseUrl: string, plan: HistoryPlan, options: BuildOptions): Promise<BuildStep[]> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: Math.max(1, options.jobs) });
  const steps: BuildStep[] = [];
  const timed = async (step: string, run: () => Promise<void>) => {
    const started = performance.now();
    options.log(`${step}...`);
    await run();
    steps.push({ step, seconds: (performance.now() - started) / 1000 });
  };
  const { customers, events } = plan.sizes;
  try {
    const admin = await pool.connect();
    const dropped: SavedDefinitions[] = [];
    const tables = await bulkTables(admin);
    const keys = tables.includes('event_transactions');
    try {
      await ensureMonthlyPartitions(admin, plan.t0Ms, plan.t0Ms + plan.spanMs, options.log);
      if (options.indexes === 'drop') await timed('drop keys, indexes and foreign keys', async () => void dropped.push(await dropDefinitions(admin, tables)));
    } finally {
      admin.release();
    }
    const customerChunk = Math.max(1, Math.ceil(customers / 10));
    const eventChunk = Math.max(1, Math.ceil(events / 20));
    const customerTasks = ranges(customers, customerChunk).map(([a, b]) => ({ label: `customers ${a}-${b - 1}`, sql: customersStatement(plan, a, b) }));
    const progressTasks = ranges(customers, customerChunk).map(([a, b]) => ({
      label: `progress of customers ${a}-${b - 1}`,
      sql: progressStatement(plan, `generate_series(${a}, ${b - 1}) AS src(c)`),
    }));
    const eventTasks = ranges(events, eventChunk).map(([a, b]) => ({ label: `events ${a}-${b - 1}`, sql: eventsStatement(plan, a, b) }));
    const ledgerTasks = ranges(events, eventChunk).map(([a, b]) => ({ label: `ledger of events ${a}-${b - 1}`, sql: ledgerStatement(plan, a, b) }));
    const keyTasks = keys ? ranges(events, eventChunk).map(([a, b]) => ({ label: `idempotency keys of events ${a}-${b - 1}`, sql: transactionsStatement(plan, a, b) })) : [];
    if (options.indexes === 'drop') {
      // No keys to check: every table at once.
      await timed('customers, progress, events and ledger', () => runParallel(pool, options.jobs, [...customerTasks, ...progressTasks, ...eventTasks, ...ledgerTasks], options.log));
      if (keys) await timed('idempotency keys', () => runParallel(pool, options.jobs, keyTasks, options.log));
      const ddl = restoreStatements(dropped[0]);
      await timed('keys, indexes and foreign keys again', () => runParallel(pool, options.jobs, ddl.map((d) => ({ label: d.label, sql: d.sql })), options.log));
    } else {
      await timed('customers', () => runParallel(pool, options.jobs, customerTasks, options.log));
      await timed('progress and events', () => runParallel(pool, options.jobs, [...progressTasks, ...eventTasks], options.log));
      await timed('ledger and idempotency keys', () => runParallel(pool, options.jobs, [...ledgerTasks, ...keyTasks], options.log));
    }
    const invalid = (await pool.query(`SELECT string_agg(indexrelid::regclass::text, ', ') AS names FROM pg_index WHERE NOT indisvalid`)).rows[0].names;
    if (invalid) throw new Error(`indexes left invalid by the build: ${invalid}`);
    await timed('sequences, VACUUM ANALYZE, CHECKPOINT', async () => {
      await pool.query(`SELECT setval(pg_get_serial_sequence('events', 'id'), (SELECT max(id) FROM events))`);
      await pool.query(`SELECT setval(pg_get_serial_sequence('points_ledger', 'id'), (SELECT max(id) FROM points_ledger))`);
      // Autovacuum would have visited old rows long ago (and is off on some machines): hint bits and the visibility
      // map set now, not by the first requests measured.
      await runParallel(pool, options.jobs, tables.map((t) => ({ label: `VACUUM ANALYZE ${t}`, sql: `VACUUM (ANALYZE) ${t}` })), options.log);
      await pool.query('CHECKPOINT');
    });
    return steps;
  } finally {
    await pool.end();
  }
}

/** Rows of each bulk table in the organization's database (exact counts). */
export async function countRows(db: pg.Pool): Promise<Record<Table, number>> {
  const out = {} as Record<Table, number>;
  for (const t of TABLES) out[t] = Number((await db.query(`SELECT count(*) AS n FROM ${t}`)).rows[0].n);
  return out;
}

/**
 * Puts a kept database back as it was built: the rows a run added (events and ledger rows past the built ids, and
 * whatever refers to those events) deleted, and the customers they touched (balances, tags) and their progress rows
 * written again from the generator. Answers the customers put back.
 */
export async function restoreHistory(databaseUrl: string, plan: HistoryPlan): Promise<number> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const lastEvent = plan.eventBase + plan.sizes.events - 1;
    const lastLedger = plan.ledgerBase + plan.sizes.events * LEDGER_PER_EVENT - 1;
    await db.query('BEGIN');
    await db.query('SET LOCAL synchronous_commit = off');
    // Customers whose balances or progress changed: those of the events evaluated (V2 events the run only accepted
    // are still pending and changed nothing).
    const touched = (
      await db.query(
        `SELECT DISTINCT substr(c.external_id, 6)::int AS c
           FROM customers c
          WHERE c.id IN (SELECT customer_id FROM events WHERE id > $1 AND status <> 'pending' UNION SELECT customer_id FROM points_ledger WHERE id > $2)
            AND c.external_id LIKE 'cust-%'`,
        [lastEvent, lastLedger],
      )
    ).rows.map((r) => r.c as number);
    // What refers to those events goes first (with the idempotency keys they claimed); where events still have foreign
    // keys pointing at them (the unpartitioned log), those are then not checked row by row.
    for (const table of ['notifications', 'customer_offers', 'webhook_deliveries']) await db.query(`DELETE FROM ${table} WHERE event_id > $1`, [lastEvent]);
    if (await hasTransactionsTable(db)) {
      await db.query(
        `DELETE FROM event_transactions t USING events e WHERE e.id > $1 AND e.transaction_id IS NOT NULL AND t.api_key_id = e.api_key_id AND t.transaction_id = e.transaction_id`,
        [lastEvent],
      );
    }
    await db.query(`DELETE FROM points_ledger WHERE id > $1`, [lastLedger]);
    await db.query(`SET LOCAL session_replication_role = replica`);
    await db.query(`DELETE FROM events WHERE id > $1`, [lastEvent]);
    await db.query(`SET LOCAL session_replication_role = origin`);
    if (touched.length) {
      await db.query(
        `UPDATE customers c SET available_points = f.points, lifetime_points = f.points, tags = f.tags, tier_id = NULL, qualified_campaign_ids = '{}',
                completed_campaign_ids = '{}', updated_at = f.updated_at
           FROM (${customerFacts(plan, 'unnest($1::int[]) AS src(c)')}) f
          WHERE c.id = f.id`,
        [touched],
      );
      await db.query(progressStatement(plan, 'unnest($1::int[]) AS src(c)', true), [touched]);
    }
    await db.query(`SELECT setval(pg_get_serial_sequence('events', 'id'), $1)`, [lastEvent]);
    await db.query(`SELECT setval(pg_get_serial_sequence('points_ledger', 'id'), $1)`, [lastLedger]);
    const deleted = (await db.query(`SELECT n_tup_del + n_tup_upd AS n FROM pg_stat_xact_user_tables WHERE relname = 'events'`)).rows[0]?.n;
    await db.query('COMMIT');
    // The dead rows cleaned up now, not by the next run's requests (autovacuum may be off, as on the benchmark machine);
    // the idempotency keys' too, or each run's deleted keys stay in their index and it grows run after run.
    if (Number(deleted) > 0 || touched.length > 0) for (const t of await bulkTables(db)) await db.query(`VACUUM (ANALYZE) ${t}`);
    return touched.length;
  } catch (error) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await db.end();
  }
}

export interface TableSize {
  table: string;
  rows: number;
  heap: number;
  indexes: number;
  total: number;
}

/** The database's size and each bulk table's (its partitions included): heap with TOAST, indexes, total. */
export async function sizes(db: pg.Pool): Promise<{ database: number; tables: TableSize[] }> {
  const database = Number((await db.query(`SELECT pg_database_size(current_database()) AS s`)).rows[0].s);
  const tables: TableSize[] = [];
  for (const t of await bulkTables(db)) {
    // A partitioned table's size is its partitions' (pg_partition_tree answers nothing for a plain table).
    const r = (
      await db.query(
        `SELECT sum(pg_table_size(c.oid))::bigint AS heap, sum(pg_indexes_size(c.oid))::bigint AS indexes, sum(pg_total_relation_size(c.oid))::bigint AS total,
                sum(greatest(c.reltuples, 0))::bigint AS rows
           FROM pg_class c
          WHERE c.oid IN (SELECT relid FROM pg_partition_tree($1::regclass) WHERE isleaf UNION SELECT $1::regclass::oid WHERE NOT EXISTS (SELECT FROM pg_partition_tree($1::regclass)))`,
        [t],
      )
    ).rows[0];
    tables.push({ table: t, rows: Number(r.rows), heap: Number(r.heap), indexes: Number(r.indexes), total: Number(r.total) });
  }
  return { database, tables };
}

/**
 * What V2 acceptance writes at random for each event: the idempotency keys' index, the customers with their
 * external-id index (the lookup), and the indexes of the month it stores into. Where shared_buffers holds less, those
 * pages are read from the OS and written back again, event after event.
 */
export async function acceptanceWorkingSet(db: pg.Pool): Promise<number> {
  const r = (
    await db.query(
      `SELECT pg_relation_size('event_transactions_pkey') + pg_table_size('customers') + pg_relation_size('customers_external_id')
              + coalesce(pg_indexes_size(to_regclass('events_' || to_char(now(), 'YYYY_MM'))), 0) AS bytes`,
    )
  ).rows[0];
  return Number(r.bytes);
}

/** The first ids a build writes (a fresh organization in a fresh database: 1, unless rows are already there). */
export async function nextIds(db: pg.Pool): Promise<{ eventBase: number; ledgerBase: number }> {
  const r = (await db.query(`SELECT (SELECT coalesce(max(id), 0) + 1 FROM events) AS e, (SELECT coalesce(max(id), 0) + 1 FROM points_ledger) AS l`)).rows[0];
  return { eventBase: Number(r.e), ledgerBase: Number(r.l) };
}

export const DAY = DAY_MS;
export { KINDS };
