/**
 * The soak's organization, built through the API as a program team would: campaigns whose goals count events (their
 * outcome does not depend on the order events are processed in, so a replay in `occurred_at` order must agree), a
 * campaign with a budget that runs out during the run, one completed by perform, webhooks for every type at the local
 * receiver, customers (three of them hot), and credits back-dated so that they expire while the soak runs.
 */
import type { CampaignDefinition } from './model.js';
import type { Random } from './random.js';

export interface SoakTenant {
  key: string;
  auth: string;
  organizationId: number;
  everydayId: number;
  budgetId: number;
  performId: number;
  /** Every behavior the setup created, by name (names are unique across the soak's campaigns), to its id. */
  behaviorIds: Record<string, number>;
  /** Customers given a back-dated `welcome` event at the setup (one each, marker SETUP_MARKER, answered 200). */
  welcomed: Customer[];
  /** Customers of V1 sync traffic (debits, reversals, perform too). */
  syncCustomers: Customer[];
  /** Customers of queued traffic (V2, V1 async): kept apart so that each customer's events are evaluated in one way. */
  queuedCustomers: Customer[];
  hot: Customer[];
}

export interface Customer {
  id: string;
  externalId: string;
}

const DAY_MS = 86_400_000;
const goal = (name: string, extra: Record<string, unknown> = {}) => ({ goals: [{ achievement: { name, event_count: 1, ...extra } }] });

/** Counting goals only (see above). */
export const EVERYDAY_BEHAVIORS = [
  { name: 'Visit', points: 1, data: {}, goal_groups: [goal('visit')] },
  { name: 'Five visits', points: 10, data: { max_times_achievable: 100 }, goal_groups: [goal('visit', { event_count: 5 })] },
  { name: 'Purchase', points: 5, data: {}, goal_groups: [goal('purchase')] },
  { name: 'Share', points: 3, data: {}, goal_groups: [goal('share')] },
  { name: 'Login', points: 1, data: {}, goal_groups: [goal('login')] },
  { name: 'Welcome', points: 100, data: {}, goal_groups: [goal('welcome')] },
];

export const BUDGET_BEHAVIORS = [{ name: 'Budget purchase', points: 50, data: {}, goal_groups: [goal('purchase')] }];
/** 50 points a purchase, until 150 completions: the budget runs out during the run. */
export const BUDGET = { max_completions: 150, max_points: null };
export const PERFORM_BEHAVIORS = [{ name: 'Performed', points: 20, data: {}, goal_groups: [goal('performed')] }];
export const ORGANIZATION_TIME_ZONE = 'Europe/Paris';
export const POINTS_EXPIRE_AFTER_DAYS = 1;

/** The campaigns setUpTenant creates, as the soak's model (model.ts) reads them: the one definition of both. */
export const SOAK_CAMPAIGNS: CampaignDefinition[] = [
  { name: 'Everyday', behaviors: EVERYDAY_BEHAVIORS },
  { name: 'Budget', behaviors: BUDGET_BEHAVIORS, budget: BUDGET },
  { name: 'Perform', behaviors: PERFORM_BEHAVIORS },
];

export class SetupApi {
  constructor(
    private readonly url: string,
    private readonly adminToken: string,
  ) {}

  async bootstrap(): Promise<{ key: string; auth: string; organizationId: number }> {
    const body = await this.call('POST', '/admin/v1/organizations', `Bearer ${this.adminToken}`, {
      organization: { name: 'Soak', time_zone: ORGANIZATION_TIME_ZONE, points_expire_after_days: POINTS_EXPIRE_AFTER_DAYS },
      application: { name: 'Soak' },
    });
    const key = body.api_key as string;
    return { key, auth: `Basic ${Buffer.from(`${key}:${body.api_secret as string}`).toString('base64')}`, organizationId: (body.organization as { id: number }).id };
  }

  async call(method: string, path: string, auth: string, body?: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(`${this.url}${path}`, { method, headers: { authorization: auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  }
}

/** Builds the organization; `soakMs` is how long the run lasts (the back-dated credits fall due within it). */
export async function setUpTenant(api: SetupApi, receiverUrl: string, random: Random, soakMs: number, customerCount: number): Promise<SoakTenant> {
  const { key, auth, organizationId } = await api.bootstrap();
  const base = `/priv/v1/apps/${key}`;
  const now = Date.now();
  const live = { status: 'live', starts_at: new Date(now - 3 * DAY_MS).toISOString(), ends_at: new Date(now + 365 * DAY_MS).toISOString() };
  const behaviorIds: Record<string, number> = {};
  const campaign = async ({ name, behaviors, budget }: CampaignDefinition) => {
    const created = await api.call('POST', `${base}/management/campaigns`, auth, { campaign: { name, ...live, ...(budget ? { budget } : {}) } });
    const id = (created.campaign as { id: number }).id;
    const batch = await api.call('POST', `${base}/management/campaigns/${id}/behaviors/_batch`, auth, { behaviors });
    for (const b of batch.behaviors as Array<{ id: number; name: string }>) behaviorIds[b.name] = b.id;
    return id;
  };
  const [everydayId, budgetId, performId] = [await campaign(SOAK_CAMPAIGNS[0]), await campaign(SOAK_CAMPAIGNS[1]), await campaign(SOAK_CAMPAIGNS[2])];
  await api.call('POST', `${base}/management/webhooks`, auth, {
    webhook: { url: receiverUrl, event_types: ['notification.created', 'behavior.completed', 'tier.changed', 'points.credited', 'points.debited', 'points.expired', 'points.reversed', 'campaign.budget_exhausted'] },
  });
  const customers: Customer[] = [];
  for (let i = 0; i < customerCount; i += 1) {
    const created = await api.call('POST', `${base}/users`, auth, { user: { external_id: `soak-${i}` } });
    customers.push({ id: (created.user as { id: string }).id, externalId: `soak-${i}` });
  }
  const hot = customers.slice(0, 3);
  const rest = customers.slice(3);
  const syncCustomers = rest.filter((_, i) => i % 2 === 0);
  const queuedCustomers = rest.filter((_, i) => i % 2 === 1);
  // Credits back-dated a day less a moment of the run: with points_expire_after_days 1 they fall due while it runs.
  const welcomed = [...syncCustomers, ...hot];
  const backDated = welcomed.map((c) => ({
    name: 'welcome',
    user_id: c.id,
    occurred_at: new Date(now - DAY_MS + 60_000 + Math.floor(random.next() * Math.max(soakMs - 120_000, 60_000))).toISOString(),
    context: { soak_id: 'setup' },
  }));
  for (let i = 0; i < backDated.length; i += 500) await api.call('POST', `/priv/v2/apps/${key}/events`, auth, { events: backDated.slice(i, i + 500) });
  return { key, auth, organizationId, everydayId, budgetId, performId, behaviorIds, welcomed, syncCustomers, queuedCustomers, hot };
}
