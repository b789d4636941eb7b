import { campaignSeesEvent, campaignState, StateContext } from './campaign-state.js';
import { campaignsListeningTo } from './compile.js';
import type { EvaluateInput } from './evaluate.js';
import type { CampaignState } from './explanation.js';

export interface CampaignCheck {
  campaignId: number;
  state: CampaignState;
  detail: string;
}

export interface EligibilityResult {
  /** `qualified` if any campaign qualifies, else the first failure, else events_not_qualified. */
  state: CampaignState;
  campaigns: CampaignCheck[];
}

/**
 * The campaign states an event would meet, without evaluating goals or changing anything: the V1 `qualify=true`
 * check. Campaigns checked: the live ones listening to the events' names (only the named one when scoped).
 */
export function checkEligibility(input: EvaluateInput): EligibilityResult {
  const ctx: StateContext = {
    rules: input.rules,
    customer: input.customer,
    progress: input.progress,
    now: input.now,
    multiOrgEnabled: input.multiOrgEnabled,
    qualify: input.qualify ?? false,
  };
  const scoped = input.campaignId ?? null;
  const campaigns: CampaignCheck[] = [];
  const seen = new Set<number>();
  for (const instance of input.events) {
    for (const campaign of campaignsListeningTo(input.rules, instance.name, scoped)) {
      if (seen.has(campaign.rule.id) || campaign.rule.status !== 'live' || !campaignSeesEvent(ctx, campaign, instance)) continue;
      seen.add(campaign.rule.id);
      const check = campaignState(ctx, campaign, instance);
      campaigns.push({ campaignId: campaign.rule.id, state: check.state, detail: check.detail });
    }
  }
  const state = campaigns.some((c) => c.state === 'qualified') ? 'qualified' : (campaigns[0]?.state ?? 'events_not_qualified');
  return { state, campaigns };
}
