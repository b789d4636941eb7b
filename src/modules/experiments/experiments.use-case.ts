import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import { AppError } from '../../common/errors/app-error.js';
import type { Tenant } from '../../common/http/request-context.js';
import type { Campaign } from '../../database/entities/index.js';
import { experimentResults, HOLDOUT, type GroupSums } from '../../engine/index.js';
import { AnalyticsRepository } from '../analytics/index.js';
import { ConfigChangesService } from '../audit/index.js';
import { CampaignsService, campaignView } from '../campaigns/index.js';
import type { ExperimentResultsView } from './dto/experiment-results.dto.js';
import { ExperimentsRepository } from './experiments.repository.js';

/**
 * A campaign's experiment (contract §20): its results from the groups' sums (folded from what the event path appends,
 * as the analytics are), and its end, which freezes them.
 */
@Injectable()
export class ExperimentsUseCase {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly campaigns: CampaignsService,
    private readonly repository: ExperimentsRepository,
    private readonly fold: AnalyticsRepository,
    private readonly changes: ConfigChangesService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async results(tenant: Tenant, campaignId: number): Promise<ExperimentResultsView> {
    const campaign = withExperiment(await this.campaigns.find(this.db.manager, tenant, { id: campaignId }));
    if (campaign.experimentEndedAt) return this.frozen(campaign);
    // Everything evaluated before this read is in it.
    await this.fold.foldAll();
    return this.resultsOf(campaign, await this.repository.sums(campaign.id));
  }

  /** Ends the experiment with the winner: every customer is evaluated as it from now on; the results are frozen as of now. */
  async end(tenant: Tenant, campaignId: number, winner: string): Promise<ExperimentResultsView> {
    await this.fold.foldAll();
    return this.db.transaction(async (em) => {
      const campaign = withExperiment(await this.campaigns.find(em, tenant, { id: campaignId }, true));
      if (campaign.experimentEndedAt) {
        throw new AppError('already_ended', `the experiment has already ended (${campaign.experimentEndedAt.toISOString()}, winner ${campaign.experimentWinner})`);
      }
      const names = campaign.experiment.variants.map((v) => v.name);
      if (!names.includes(winner)) throw AppError.validation('winner', `must be a variant of the experiment: ${names.join(', ')}`);
      const before = campaignView(campaign);
      campaign.experimentEndedAt = new Date(this.clock.now());
      campaign.experimentWinner = winner;
      const results = this.resultsOf(campaign, await this.repository.sums(campaign.id, em));
      await this.repository.end(em, campaign.id, campaign.experimentEndedAt, winner, results);
      await this.changes.record(em, tenant, { action: 'update', objectType: 'campaign', objectId: campaign.id, before, after: campaignView(campaign) });
      return results;
    });
  }

  private async frozen(campaign: CampaignWithExperiment): Promise<ExperimentResultsView> {
    const results = await this.repository.frozen(campaign.id);
    // The settings as they are now (metric may have changed since); the figures as of the end.
    return { ...results!, ...campaignView(campaign).experiment! };
  }

  private resultsOf(campaign: CampaignWithExperiment, stored: GroupSums[]): ExperimentResultsView {
    const e = campaign.experiment;
    const zero = (name: string): GroupSums => ({ name, customers: 0, converted: 0, metricSum: 0, metricSumSquares: 0, achievements: 0, pointsCredited: 0 });
    const sums = [HOLDOUT, ...e.variants.map((v) => v.name)].map((name) => stored.find((s) => s.name === name) ?? zero(name));
    const figures = experimentResults({ holdoutPercent: e.holdout_percent, variants: e.variants }, sums);
    return { ...campaignView(campaign).experiment!, ...figures };
  }
}

type CampaignWithExperiment = Campaign & { experiment: NonNullable<Campaign['experiment']> };

/** The campaign, if it runs an experiment; else not_found (the experiment does not exist). */
function withExperiment(campaign: Campaign): CampaignWithExperiment {
  if (!campaign.experiment) throw new AppError('not_found', `campaign ${campaign.id} runs no experiment`);
  return campaign as CampaignWithExperiment;
}
