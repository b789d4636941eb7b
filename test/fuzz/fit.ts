import type { Ids } from './world.js';

const DAY = 86_400_000;

/**
 * The documented example body made valid for the fuzzed organization: its ids, and dates around now (the examples'
 * fixed dates are past). A request built from it gets past validation, so what is changed in it is what is tested.
 */
export function fitExample(example: unknown, ids: Ids, now = Date.now()): unknown {
  const at = (days: number) => new Date(now + days * DAY).toISOString();
  const number = (key: string) => Number(ids[key]);
  const fields: Record<string, (value: unknown) => unknown> = {
    division_id: (value) => (typeof value === 'string' ? ids.division_id : number('division_id')),
    parent_id: () => number('root_division_id'),
    application_id: () => number('application_id'),
    behavior_id: () => number('behavior_id'),
    user_id: () => ids.user_id,
    starts_at: () => at(-1),
    ends_at: () => at(300),
    scheduled_delivery_date: () => at(20),
    date: () => at(0),
    occurred_at: () => at(0),
  };
  const walk = (value: unknown, key: string | null): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item, null));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = walk(v, k);
      if (key === 'deal' && 'id' in out) out.id = number('offer_id');
      if (key === 'ad_unit' && 'id' in out) out.id = number('creative_id');
      if (key === 'issue_audience_csv' && out.delivery_method === 'triggered') delete out.scheduled_delivery_date;
      return out;
    }
    return key !== null && fields[key] ? fields[key](value) : value;
  };
  return walk(example, null);
}
