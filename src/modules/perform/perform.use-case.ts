import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors/app-error.js';
import type { Tenant } from '../../common/http/request-context.js';
import { UUID } from '../../common/validation/uuid.js';
import {
  behaviorEligibility,
  behaviorView,
  perform,
  performBehaviorsInvolved,
  PERFORM_DOMAINS,
  tierName,
  type CompiledRules,
  type EventInstance,
  type PerformResult,
  type ProgressMap,
} from '../../engine/index.js';
import { webhookOccurrences } from '../webhooks/occurrences.js';
import type { CampaignKey } from '../events/scope.js';
import { EvaluationPipeline } from '../evaluation/evaluation.pipeline.js';
import { DuplicateTransaction, EvaluationRepository, type CustomerKey, type LoadedCustomer } from '../evaluation/evaluation.repository.js';
import { eventResult } from '../evaluation/event-outcome.js';
import { newEventRows, planWrite, type NewEvent } from '../evaluation/write-plan.js';
import {
  PERFORM_FILTERS,
  PERFORM_PLACEMENTS,
  PERFORM_SECTIONS,
  type PerformBody,
  type PerformCampaign,
  type PerformFilter,
  type PerformPlacement,
  type PerformQuery,
  type PerformResponse,
  type PerformSection,
} from './dto/perform.dto.js';
import { CampaignRow, PerformRepository } from './perform.repository.js';
import type { EnrichableEvent } from '../../extension-api/kinds.js';
import { EventEnrichment } from '../extensions/event-enrichment.js';

export interface PerformRequest {
  tenant: Tenant;
  customer: CustomerKey;
  campaign: CampaignKey;
  body: PerformBody;
  query: PerformQuery;
  requestId: string;
}

/** What a completed perform answers from. */
interface Done {
  rules: CompiledRules;
  result: PerformResult;
  progress: ProgressMap;
  now: number;
}

interface Options {
  sections: Set<PerformSection>;
  filters: Set<PerformFilter>;
  placements: PerformPlacement[];
}

/** Values of a list parameter: `x[]=a&x[]=b`, `x=a,b`, or both; blanks dropped. Unknown values: 400 validation. */
function listParam<T extends string>(raw: string | string[] | undefined, field: string, allowed: readonly T[]): { values: T[]; blank: boolean } {
  const items = (raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]).flatMap((v) => String(v).split(',')).map((v) => v.trim());
  const values: T[] = [];
  for (const item of items) {
    if (item === '') continue;
    if (!(allowed as readonly string[]).includes(item)) throw AppError.validation(`${field}[]`, `must be one of ${allowed.join(', ')} (got "${item}")`);
    if (!values.includes(item as T)) values.push(item as T);
  }
  return { values, blank: items.some((v) => v === '') };
}

function options(query: PerformQuery): Options {
  const creatives = listParam(query.creatives, 'creatives', PERFORM_PLACEMENTS);
  const filters = listParam(query.filters, 'filters', PERFORM_FILTERS).values;
  return {
    sections: new Set(listParam(query.sections, 'sections', PERFORM_SECTIONS).values),
    filters: new Set(filters.length === 0 || filters.includes('all') ? ['eligible', 'ineligible'] : filters),
    // A blank value removes the creatives section, whatever else is asked.
    placements: creatives.blank ? [] : creatives.values,
  };
}

/** Perform (contract §12): a domain action on one customer and one campaign, in one transaction. */
@Injectable()
export class PerformUseCase {
  constructor(
    private readonly pipeline: EvaluationPipeline,
    private readonly repository: PerformRepository,
    private readonly events: EvaluationRepository,
    private readonly enrichment: EventEnrichment,
  ) {}

  async execute(req: PerformRequest): Promise<PerformResponse> {
    const domain = req.body.domain;
    if (domain === undefined || domain === null || domain === '') throw new AppError('missing_data', 'missing domain', [{ field: 'domain', message: 'is required' }]);
    if (!(PERFORM_DOMAINS as readonly string[]).includes(domain)) {
      throw new AppError('not_available', `domain "${domain}" is not available; available: ${PERFORM_DOMAINS.join(', ')}`, [
        { field: 'domain', message: `must be one of ${PERFORM_DOMAINS.join(', ')}` },
      ]);
    }
    const opts = options(req.query);
    const org = req.tenant.organizationId;
    if ('userId' in req.customer && !UUID.test(req.customer.userId)) throw AppError.notFound('user');
    const campaign = await this.repository.campaign(org, req.campaign);
    if (!campaign) throw AppError.notFound('campaign');
    // The event perform stores, as the enrichers leave it (before the customer is locked: they may take their time).
    const stored: EnrichableEvent = { name: 'complete_campaign', attributes: {}, context: {} };
    const enriching = this.enrichment.enrich([stored], { organizationId: org, source: 'perform' });
    if (enriching) await enriching;
    const done = await this.pipeline.forCustomer<Done>({
      organizationId: org,
      customer: req.customer,
      write: true,
      requestId: req.requestId,
      involved: (rules) => performBehaviorsInvolved(rules, campaign.id),
      decide: async ({ rules, customer, progress, subscribed, now, uow, budgets }) => {
        // A repeat answers 409 even when the first perform completed the campaign (which would otherwise be a 422);
        // a repeat racing the first one for another customer is stopped by the unique index when it writes.
        const transactionId = req.body.transaction_id;
        if (transactionId !== undefined && (await this.events.transactionUsed(uow, req.tenant.apiKeyId, transactionId))) {
          throw new DuplicateTransaction(transactionId);
        }
        const result = perform({ rules, customer: customer.snapshot, progress, campaignId: campaign.id, now, multiOrgEnabled: req.tenant.multiOrgEnabled, budgets });
        if (result.failure) throw new AppError('failed_to_perform', `cannot complete the campaign: ${result.failure.detail}`);
        const event = this.event(req, customer, campaign.id, now, result, stored);
        const webhooks = webhookOccurrences(rules, customer.snapshot, result, customer.externalId, subscribed, now);
        return {
          plan: planWrite({ insert: newEventRows([event]) }, [{ organizationId: org, before: customer.snapshot, result, firstIndex: 0, webhooks }]),
          answer: () => ({ rules, result, progress: { ...progress, ...result.progress }, now }),
        };
      },
    });
    return { status: 'ok', campaign: await this.answer(req, campaign, opts, done) };
  }

  /** The one event row perform writes: processed, source 'perform'; its ledger rows, offers and notifications hang on it. */
  private event(req: PerformRequest, customer: LoadedCustomer, campaignId: number, now: number, result: PerformResult, enriched: EnrichableEvent): NewEvent {
    const multiOrg = req.tenant.multiOrgEnabled;
    const instance: EventInstance = {
      name: 'complete_campaign',
      count: 1,
      attributes: { ...enriched.attributes, domain: 'complete_campaign' },
      context: multiOrg ? { ...enriched.context, division_id: customer.snapshot.divisionId } : enriched.context,
      occurredAt: now,
      day: null,
    };
    const { points, result: summary } = eventResult(result, 0, false);
    return {
      organizationId: req.tenant.organizationId,
      apiKeyId: req.tenant.apiKeyId,
      customerId: customer.snapshot.id,
      userRef: customer.externalId,
      source: 'perform',
      transactionId: req.body.transaction_id ?? null,
      instance,
      divisionId: multiOrg ? customer.snapshot.divisionId : null,
      campaignId,
      status: 'processed',
      reason: null,
      result: summary,
      pointsEarned: points,
      requestId: req.requestId,
      qualify: false,
    };
  }

  private async answer(
    req: PerformRequest,
    campaign: CampaignRow,
    opts: Options,
    done: Done,
  ): Promise<PerformCampaign> {
    const { rules, result, progress, now } = done;
    const customer = result.customer;
    const compiled = rules.campaigns.get(campaign.id)!;
    const out: PerformCampaign = {
      campaign_id: campaign.id,
      campaign_permalink: campaign.permalink,
      name: campaign.name,
      status: campaign.status,
      starts_at: campaign.starts_at.toISOString(),
      ends_at: campaign.ends_at.toISOString(),
      qualified: result.qualified,
    };
    if (opts.sections.has('progress')) {
      out.progress = {
        completed: customer.completedCampaignIds.includes(campaign.id),
        behaviors_total: compiled.behaviors.length,
        behaviors_achieved: compiled.behaviors.filter((b) => (progress[b.rule.id]?.achieved ?? 0) > 0).length,
        points_earned: result.credits.reduce((sum, c) => sum + c.amount, 0),
        available_points: customer.availablePoints,
        lifetime_points: customer.lifetimePoints,
        tier: tierName(rules, customer.tierId),
      };
    }
    if (opts.sections.has('behaviors')) {
      const eligible = behaviorEligibility(rules, campaign.id, progress, customer, now);
      out.behaviors = compiled.behaviors
        .filter((b) => opts.filters.has(eligible[b.rule.id] ? 'eligible' : 'ineligible'))
        .map((b) => ({ name: b.rule.name, eligible: eligible[b.rule.id], ...behaviorView(b, progress[b.rule.id]) }));
    }
    if (opts.sections.has('offers')) out.offers = await this.repository.offers(customer.id, campaign.id);
    if (opts.sections.has('redemptions')) out.redemptions = [];
    if (opts.placements.length) {
      const creatives = await this.repository.activeCreatives(req.tenant.organizationId, campaign.id);
      out.creatives = Object.fromEntries(opts.placements.map((p) => [p, creatives]));
    }
    return out;
  }
}
