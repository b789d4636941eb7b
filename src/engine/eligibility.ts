import { failureRecords, skippedDetail, stampFailure, ExtensionFailure } from './bulkheads.js';
import { campaignSeesEvent, campaignState, StateContext, type StateCheck } from './campaign-state.js';
import { campaignsListeningTo } from './compile.js';
import type { EvaluateInput } from './evaluate.js';
import type { CampaignState } from './explanation.js';
import type { ExtensionFailureRecord } from './result.js';

export interface CampaignCheck {
  campaignId: number;
  state: CampaignState;
  detail: string;
}

export interface EligibilityResult {
  /** `qualified` if any campaign qualifies, else the first failure, else events_not_qualified. */
  state: CampaignState;
  campaigns: CampaignCheck[];
  /** Extensions that threw in a campaign's targeting: that campaign's state is `extension_failed`. */
  extensionFailures: ExtensionFailureRecord[];
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
  const failures = new Map<number, ExtensionFailure>();
  const seen = new Set<number>();
  for (const [index, instance] of input.events.entries()) {
    for (const campaign of campaignsListeningTo(input.rules, instance.name, scoped)) {
      if (seen.has(campaign.rule.id) || campaign.rule.status !== 'live' || !campaignSeesEvent(ctx, campaign, instance)) continue;
      seen.add(campaign.rule.id);
      const check = checkCampaign(() => campaignState(ctx, campaign, instance), campaign.rule.id, index, failures);
      campaigns.push({ campaignId: campaign.rule.id, state: check.state, detail: check.detail });
    }
  }
  const failed = failures.size ? 'extension_failed' : null;
  const state = campaigns.some((c) => c.state === 'qualified') ? 'qualified' : (failed ?? campaigns[0]?.state ?? 'events_not_qualified');
  return { state, campaigns, extensionFailures: failureRecords(failures) };
}

/** A campaign's check, or `extension_failed` when an extension its targeting calls threw (it changes nothing). */
function checkCampaign(check: () => StateCheck, campaignId: number, eventIndex: number, failures: Map<number, ExtensionFailure>): StateCheck {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof ExtensionFailure)) throw error;
    failures.set(campaignId, stampFailure(error, campaignId, eventIndex) as ExtensionFailure);
    return { state: 'extension_failed', detail: skippedDetail(error), qualifiedNow: false };
  }
}
