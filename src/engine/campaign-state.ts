import { capReached } from './caps.js';
import type { CompiledCampaign, CompiledRules } from './compiled.js';
import { describeFailure } from './criteria.js';
import { behaviorApplies, experimentGroup, HOLDOUT } from './experiments.js';
import type { CampaignState } from './explanation.js';
import { emptyBehaviorProgress } from './progress.js';
import { iso } from './time.js';
import type { CustomerSnapshot, EventInstance, ProgressMap } from './types.js';

export interface StateCheck {
  state: CampaignState;
  detail: string;
  /** The customer qualified for an opt-in campaign through `qualify: true`. */
  qualifiedNow: boolean;
  /** The customer is in the holdout of the campaign's experiment (state not_targeted_to_campaign, §20). */
  holdout?: true;
}

export interface StateContext {
  rules: CompiledRules;
  customer: CustomerSnapshot;
  progress: ProgressMap;
  now: number;
  multiOrgEnabled: boolean;
  qualify: boolean;
}

export function tierName(rules: CompiledRules, tierId: number | null): string | null {
  return tierId === null ? null : (rules.tiers.find((t) => t.id === tierId)?.name ?? null);
}

/** With multi-org on, a campaign sees an event of its own division or of a division below it. */
export function campaignSeesEvent(ctx: StateContext, campaign: CompiledCampaign, instance: EventInstance): boolean {
  const divisionId = campaign.rule.divisionId;
  if (!ctx.multiOrgEnabled || divisionId === null) return true;
  const eventDivision = eventDivisionOf(ctx, instance);
  return (ctx.rules.divisionAncestors[eventDivision] ?? [eventDivision]).includes(divisionId);
}

/** The event's division: context.division_id when given (validated upstream), else the customer's root. */
export function eventDivisionOf(ctx: StateContext, instance: EventInstance): number {
  const raw = instance.context.division_id;
  if (raw !== undefined && Number.isInteger(Number(raw))) return Number(raw);
  const ancestors = ctx.rules.divisionAncestors[ctx.customer.divisionId];
  return ancestors?.[0] ?? ctx.customer.divisionId;
}

/**
 * Whether the campaign reaches the customer with this instance: it is live at `now` and targets them (criteria and,
 * with multi-org, the event's division). Null when it does; else the state that says why not. An experiment assigns
 * the customers a campaign reaches (§20).
 */
export function campaignReach(ctx: StateContext, campaign: CompiledCampaign, instance: EventInstance): StateCheck | null {
  const c = campaign.rule;
  const no = (state: CampaignState, detail: string): StateCheck => ({ state, detail, qualifiedNow: false });
  if (c.startsAt > ctx.now) return no('campaign_not_started', `campaign starts at ${iso(c.startsAt)}`);
  if (c.endsAt < ctx.now) return no('campaign_over', `campaign ended at ${iso(c.endsAt)}`);
  const failure = campaign.targets({ customer: ctx.customer, tierName: tierName(ctx.rules, ctx.customer.tierId) });
  if (failure) return no('not_targeted_to_campaign', `campaign targeting: ${describeFailure(failure)}`);
  if (ctx.multiOrgEnabled) {
    const eventDivision = eventDivisionOf(ctx, instance);
    if (eventDivision !== ctx.customer.divisionId) {
      return no('not_targeted_to_campaign', `event division ${eventDivision} differs from the customer's division ${ctx.customer.divisionId}`);
    }
  }
  return null;
}

/** The campaign's state for this customer and instance, checked in the contract's order (§7). */
export function campaignState(ctx: StateContext, campaign: CompiledCampaign, instance: EventInstance): StateCheck {
  const c = campaign.rule;
  const no = (state: CampaignState, detail: string): StateCheck => ({ state, detail, qualifiedNow: false });
  const unreached = campaignReach(ctx, campaign, instance);
  if (unreached) return unreached;
  const group = experimentGroup(c, ctx.customer);
  if (group === HOLDOUT) return { ...no('not_targeted_to_campaign', "the customer is in the holdout of the campaign's experiment"), holdout: true };
  const missing = c.prerequisiteCampaignIds.filter((id) => !ctx.customer.completedCampaignIds.includes(id));
  if (missing.length) return no('missing_prerequisites', `prerequisite campaign(s) not completed: ${missing.join(', ')}`);
  let qualifiedNow = false;
  if (c.optInRequired && !ctx.customer.qualifiedCampaignIds.includes(c.id)) {
    if (!ctx.qualify) return no('events_not_qualified', 'campaign requires opt-in and the customer has not qualified (send "qualify": true)');
    qualifiedNow = true;
  }
  const listening = campaign.listening.get(instance.name);
  if (listening) {
    let [size, total, any] = [0, 0, 0];
    for (const b of listening.keys()) {
      if (!behaviorApplies(b.rule, group)) continue;
      size += 1;
      const cap = capReached(b, ctx.progress[b.rule.id] ?? emptyBehaviorProgress(), instance.occurredAt, ctx.customer.timeZone);
      if (cap) any += 1;
      if (cap?.kind === 'total') total += 1;
    }
    if (size > 0 && total === size) {
      return { state: 'reached_frequency_cap', detail: 'every behavior listening to the event reached its total cap', qualifiedNow };
    }
    if (size > 0 && any === size) {
      return { state: 'reached_frequency_period_cap', detail: 'every behavior listening to the event reached a cap for the current period', qualifiedNow };
    }
  }
  const detail = qualifiedNow ? 'qualified (opted in by this request)' : 'qualified';
  return { state: 'qualified', detail: campaign.targetingHeld ? `${detail}; targeting: ${campaign.targetingHeld}` : detail, qualifiedNow };
}
