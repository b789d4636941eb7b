import { timestampsView } from '../../common/http/timestamps.js';
import type { Campaign } from '../../database/entities/index.js';
import type { CampaignView } from './dto/campaign.dto.js';
import type { ExperimentView } from './dto/experiment.dto.js';

function experimentView(c: Campaign): ExperimentView | null {
  const e = c.experiment;
  if (!e) return null;
  return {
    holdout_percent: e.holdout_percent,
    variants: e.variants,
    metric: { event: e.metric.event, attribute: e.metric.attribute },
    started_at: c.experimentStartedAt?.toISOString() ?? null,
    ended_at: c.experimentEndedAt?.toISOString() ?? null,
    winner: c.experimentWinner,
  };
}

export function campaignView(c: Campaign): CampaignView {
  return {
    id: c.id,
    name: c.name,
    permalink: c.permalink,
    status: c.status,
    starts_at: c.startsAt.toISOString(),
    ends_at: c.endsAt.toISOString(),
    division_id: c.divisionId,
    opt_in_required: c.optInRequired,
    prerequisite_campaign_ids: c.prerequisiteCampaignIds,
    targeting: c.targeting,
    budget: c.budgetMaxCompletions === null && c.budgetMaxPoints === null ? null : { max_completions: c.budgetMaxCompletions, max_points: c.budgetMaxPoints },
    budget_used: { completions: c.budgetCompletions ?? 0, points: c.budgetPoints ?? 0 },
    experiment: experimentView(c),
    ...timestampsView(c),
  };
}
