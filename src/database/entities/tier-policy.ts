import type { TierPolicy } from '../../engine/index.js';

/** An organization's tier policy as stored and as the API answers it (contract §17). */
export type StoredTierPolicy =
  | { basis: 'lifetime' }
  | { basis: 'period'; period_months: 1 | 3 | 6 | 12; downgrade: 'one_level' | 'to_qualified'; grace_days: number };

export const LIFETIME_POLICY: StoredTierPolicy = { basis: 'lifetime' };

/** The policy as the engine takes it. */
export function tierPolicy(stored: StoredTierPolicy): TierPolicy {
  return stored.basis === 'period'
    ? { basis: 'period', periodMonths: stored.period_months, downgrade: stored.downgrade, graceDays: stored.grace_days }
    : { basis: 'lifetime' };
}
