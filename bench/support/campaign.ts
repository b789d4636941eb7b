/** The campaign of the events benchmarks, created through the management API. */

const goal = (name: string, extra: Record<string, unknown> = {}) => ({ goals: [{ achievement: { name, event_count: 1, ...extra } }] });

/** 10 live behaviors, 5 of them listening to `visit` (the same set as v1.bench.ts). */
export const BEHAVIORS = [
  { name: 'Visit', points: 1, data: {}, goal_groups: [goal('visit')] },
  { name: 'Five visits', points: 10, data: { max_times_achievable: 100 }, goal_groups: [goal('visit', { event_count: 5 })] },
  { name: 'Three stores a week', points: 25, data: { period: 604800, max_times_achievable_per_period: 1 }, goal_groups: [goal('visit', { type: 'unique', unique_attribute: 'store_id', event_count: 3 })] },
  { name: 'Visit streak', points: 15, data: {}, goal_groups: [goal('visit', { event_count: 3, data: { consecutive: true } })] },
  { name: 'Hourly visit', points: 2, data: {}, goal_groups: [goal('visit', { data: { min_time_between_events: 3600 } })] },
  { name: 'Purchase', points: 5, data: {}, goal_groups: [goal('purchase')] },
  { name: 'Share', points: 3, data: {}, goal_groups: [goal('share')] },
  { name: 'Review', points: 4, data: {}, goal_groups: [goal('review')] },
  { name: 'Login', points: 1, data: {}, goal_groups: [goal('login')] },
  { name: 'Referral', points: 50, data: {}, goal_groups: [goal('referral')] },
];

/** A live campaign (started yesterday, ending in a year) with `behaviors`; throws if the API refuses either. */
export async function createLiveCampaign(url: string, tenant: { key: string; auth: string }, behaviors: unknown[] = BEHAVIORS, name = 'Everyday'): Promise<number> {
  const now = Date.now();
  return createCampaign(url, tenant, { name, status: 'live', starts_at: new Date(now - 86_400_000).toISOString(), ends_at: new Date(now + 365 * 86_400_000).toISOString() }, behaviors);
}

/** A campaign and its behaviors through the management API; throws if the API refuses either. */
export async function createCampaign(
  url: string,
  tenant: { key: string; auth: string },
  campaign: { name: string; status: string; starts_at: string; ends_at: string },
  behaviors: unknown[],
): Promise<number> {
  const headers = { authorization: tenant.auth, 'content-type': 'application/json' };
  const base = `${url}/priv/v1/apps/${tenant.key}/management/campaigns`;
  const res = await fetch(base, { method: 'POST', headers, body: JSON.stringify({ campaign }) });
  if (res.status !== 201) throw new Error(`campaign not created: ${res.status} ${await res.text()}`);
  const { id } = ((await res.json()) as { campaign: { id: number } }).campaign;
  const batch = await fetch(`${base}/${id}/behaviors/_batch`, { method: 'POST', headers, body: JSON.stringify({ behaviors }) });
  if (batch.status !== 201) throw new Error(`behaviors not created: ${batch.status} ${await batch.text()}`);
  return id;
}

/** `count` behaviors of which the first listens to `visit` (1 point per visit) and the others to events never sent. */
export function oneListening(count: number): unknown[] {
  return Array.from({ length: count }, (_, i) =>
    i === 0 ? BEHAVIORS[0] : { name: `Other ${i}`, points: 1, data: {}, goal_groups: [goal(`other_${i}`)] },
  );
}
