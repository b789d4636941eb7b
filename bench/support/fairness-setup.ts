/**
 * The fairness benchmark's two organizations (see fairness.bench.ts): B, small (a live campaign of two behaviors, one
 * listening to `visit`, and its customers), and A, at the limits of contract §18: a live campaign with as many
 * behaviors and goals as the limits allow (docs/limits.md), a draft campaign to simulate, and a stored history of
 * two years written straight into the database (as simulation-data.ts writes its history, never through the API).
 */
import pg from 'pg';
import { createLiveCampaign, oneListening } from './campaign.js';
import { addCustomers, customerIds } from './customers.js';
import { createDraftCampaign, DAY_MS, ensurePartitions, eventsStatement } from './simulation-data.js';
import { bootstrap } from './server.js';
import { BenchFailed } from './verdict.js';

/** The limits of docs/limits.md, as the service reads them (the environment, else the contract's defaults). */
const setting = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
export const LIMITS = {
  behaviorsPerCampaign: setting('LIMIT_BEHAVIORS_PER_CAMPAIGN', 200),
  goalsPerBehavior: setting('LIMIT_GOALS_PER_BEHAVIOR', 100),
  liveGoals: setting('LIMIT_LIVE_GOALS_PER_ORGANIZATION', 5000),
  uniqueEventCount: setting('LIMIT_UNIQUE_GOAL_EVENT_COUNT', 10_000),
  attributeLength: setting('LIMIT_ATTRIBUTE_LENGTH', 1024),
  v1Instances: setting('LIMIT_V1_INSTANCES', 100),
};

export const B_CUSTOMERS = 2_000;
export const A_CUSTOMERS = 20_000;
/** A's stored history: events over the last HISTORY_DAYS days (a simulation's range may span 3 years). */
export const HISTORY_EVENTS = Number(process.env.BENCH_FAIR_HISTORY ?? 200_000);
export const HISTORY_DAYS = 730;
/** Behaviors of A's live campaign listening to `purchase`, the event A floods V2 with. */
export const PURCHASE_BEHAVIORS = 10;

export type Tenant = Awaited<ReturnType<typeof bootstrap>>;

export interface OrgA {
  tenant: Tenant;
  campaignId: number;
  behaviors: number;
  goals: number;
  draftId: number;
  history: { from: Date; to: Date; events: number; customers: number; seconds: number };
}

export interface OrgB {
  tenant: Tenant;
  ids: string[];
}

const goal = (achievement: Record<string, unknown>) => ({ achievement });

/** Behaviors of A's live campaign listening to `visit` besides behavior 0 (the V1 requests at the limits send it). */
export const VISIT_BEHAVIORS = 10;
/** Goals in one goal group at most (the behavior's validation). */
const GROUP_GOALS = 50;

/** `goals` in groups of at most GROUP_GOALS. */
const grouped = (goals: unknown[]) => Array.from({ length: Math.ceil(goals.length / GROUP_GOALS) }, (_, i) => ({ goals: goals.slice(i * GROUP_GOALS, (i + 1) * GROUP_GOALS) }));

/**
 * A's live campaign at the limits: behavior 0 holds the most goals a behavior may, the first a unique goal on
 * `visit`'s attribute `note` with the largest event_count; the others share what the live-goals limit leaves, up to
 * the most behaviors a campaign may hold. The first goal of PURCHASE_BEHAVIORS of them listens to `purchase` (A's V2
 * flood), of the next VISIT_BEHAVIORS to `visit`; every other goal listens to an event nobody sends (compiled, never
 * reached). A behavior's goals have distinct names.
 */
export function limitBehaviors(): unknown[] {
  const first = Math.min(LIMITS.goalsPerBehavior, LIMITS.liveGoals);
  const others = Math.max(0, Math.min(LIMITS.behaviorsPerCampaign - 1, LIMITS.liveGoals - first));
  const left = LIMITS.liveGoals - first;
  const notes = goal({ name: 'visit', event_count: LIMITS.uniqueEventCount, type: 'unique', unique_attribute: 'note' });
  const rest = Array.from({ length: first - 1 }, (_, g) => goal({ name: `note_event_${g + 1}`, event_count: 5 }));
  const behaviors: unknown[] = [{ name: 'Limit notes', points: 1, data: {}, goal_groups: grouped([notes, ...rest]) }];
  for (let b = 1; b <= others; b += 1) {
    const count = Math.min(LIMITS.goalsPerBehavior, Math.floor(left / others) + (b - 1 < left % others ? 1 : 0));
    const name = (g: number) => {
      if (g === 0 && b <= PURCHASE_BEHAVIORS) return 'purchase';
      if (g === 0 && b <= PURCHASE_BEHAVIORS + VISIT_BEHAVIORS) return 'visit';
      return `limit_event_${(b * 7 + g) % Math.max(100, count)}`;
    };
    behaviors.push({ name: `Limit ${b}`, points: 1, data: {}, goal_groups: grouped(Array.from({ length: count }, (_, g) => goal({ name: name(g), event_count: 5 }))) });
  }
  return behaviors;
}

const goalCount = (behaviors: unknown[]) =>
  behaviors.reduce<number>((n, b) => n + (b as { goal_groups: Array<{ goals: unknown[] }> }).goal_groups.reduce((m, g) => m + g.goals.length, 0), 0);

/** A POST of the management API; throws (with the start of the answer) unless it answers 201. */
async function create(url: string, tenant: Tenant, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${url}/priv/v1/apps/${tenant.key}/management/${path}`, { method: 'POST', headers: { authorization: tenant.auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${(await res.text()).slice(0, 500)}`);
  return res.json();
}

/** Creates A's live campaign, then its behaviors in batches (one batch of them all may pass the body limit). */
async function createLimitCampaign(url: string, tenant: Tenant): Promise<{ id: number; behaviors: number; goals: number }> {
  const behaviors = limitBehaviors();
  const now = Date.now();
  const campaign = { name: 'At the limits', status: 'live', starts_at: new Date(now - DAY_MS).toISOString(), ends_at: new Date(now + 365 * DAY_MS).toISOString() };
  const { id } = ((await create(url, tenant, 'campaigns', { campaign })) as { campaign: { id: number } }).campaign;
  for (let i = 0; i < behaviors.length; i += 50) await create(url, tenant, `campaigns/${id}/behaviors/_batch`, { behaviors: behaviors.slice(i, i + 50) });
  return { id, behaviors: behaviors.length, goals: goalCount(behaviors) };
}

/**
 * A's customers `sim-0000000`.. and HISTORY_EVENTS stored events over the last HISTORY_DAYS days, with the statement
 * of simulation-data.ts (customer k is the k-th of the organization's customers by external id: they must be all of
 * them). FAILS the run when fewer events are stored than written.
 */
async function seedHistory(db: pg.Pool, tenant: Tenant): Promise<OrgA['history']> {
  const began = Date.now();
  const to = new Date(Math.ceil(Date.now() / 1000) * 1000);
  const from = new Date(to.getTime() - HISTORY_DAYS * DAY_MS);
  const spanMs = to.getTime() - from.getTime() - 3_600_000;
  const sizes = { customers: A_CUSTOMERS, events: HISTORY_EVENTS };
  await db.query(
    `INSERT INTO customers (organization_id, external_id, time_zone, division_id, attributes)
     SELECT $1, 'sim-' || lpad(g::text, 7, '0'), 'America/New_York', d.id, jsonb_build_object('plan', (ARRAY['bronze', 'silver', 'gold'])[(g % 3) + 1])
       FROM generate_series(0, $2::int - 1) g, divisions d WHERE d.organization_id = $1 AND d.parent_id IS NULL`,
    [tenant.organizationId, A_CUSTOMERS],
  );
  await ensurePartitions(db, from.getTime(), to.getTime());
  const apiKeyId = Number((await db.query(`SELECT id FROM api_keys WHERE key = $1`, [tenant.key])).rows[0].id);
  const chunk = Math.ceil(HISTORY_EVENTS / 8);
  const chunks = Array.from({ length: Math.ceil(HISTORY_EVENTS / chunk) }, (_, i) => [i * chunk, Math.min(HISTORY_EVENTS, (i + 1) * chunk)]);
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < chunks.length) {
        const [a, b] = chunks[next++];
        await db.query(eventsStatement(sizes, from.getTime(), spanMs, a, b), [tenant.organizationId, apiKeyId]);
      }
    }),
  );
  await db.query('ANALYZE customers');
  await db.query('ANALYZE events');
  const counts = (
    await db.query(
      `SELECT (SELECT count(*) FROM events WHERE organization_id = $1)::int AS events, (SELECT count(*) FROM customers WHERE organization_id = $1)::int AS customers`,
      [tenant.organizationId],
    )
  ).rows[0] as { events: number; customers: number };
  if (counts.events < HISTORY_EVENTS || counts.customers < A_CUSTOMERS) {
    throw new BenchFailed([`A's history: ${counts.events} events of ${HISTORY_EVENTS} and ${counts.customers} customers of ${A_CUSTOMERS} stored`]);
  }
  return { from, to, events: counts.events, customers: counts.customers, seconds: (Date.now() - began) / 1000 };
}

/** Organization A: the campaign at the limits, a draft campaign (the simulations'), customers and their history. */
export async function setUpA(url: string, db: pg.Pool): Promise<OrgA> {
  const tenant = await bootstrap(url, 'A');
  const campaign = await createLimitCampaign(url, tenant);
  const draftId = await createDraftCampaign(url, tenant, 'A draft');
  const history = await seedHistory(db, tenant);
  return { tenant, campaignId: campaign.id, behaviors: campaign.behaviors, goals: campaign.goals, draftId, history };
}

/** Organization B: a live campaign of two behaviors (one listening to `visit`) and B_CUSTOMERS customers `b-1`... */
export async function setUpB(url: string, db: pg.Pool): Promise<OrgB> {
  const tenant = await bootstrap(url, 'B');
  await createLiveCampaign(url, tenant, oneListening(2), 'B everyday');
  await addCustomers(db, tenant.organizationId, 'b-', 1, B_CUSTOMERS);
  return { tenant, ids: await customerIds(db, tenant.organizationId) };
}

/** A behavior batch one behavior over A's campaign's limits (it holds the most behaviors and live goals allowed). */
export function overLimitBatch(): string {
  return JSON.stringify({ behaviors: [{ name: 'One too many', points: 1, data: {}, goal_groups: [{ goals: [goal({ name: 'purchase', event_count: 1 })] }] }] });
}
