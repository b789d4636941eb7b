import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors/app-error.js';
import type { Tenant } from '../../common/http/request-context.js';
import { UUID } from '../../common/validation/uuid.js';
import {
  behaviorEligibility,
  behaviorsInvolved,
  behaviorView,
  evaluate,
  perform,
  performBehaviorsInvolved,
  performInstance,
  performQualified,
  tierName,
  type CompiledRules,
  type EvaluationResult,
  type EventInstance,
  type ExtensionFailureRecord,
  type ProgressMap,
} from '../../engine/index.js';
import type { CampaignKey } from '../events/index.js';
import { DuplicateTransaction, EvaluationPipeline, EvaluationRepository, type CustomerKey, type EventToStore, type LoadedCustomer } from '../evaluation/index.js';
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
import type { DomainActionContext, DomainActionDecision, EnrichableEvent } from '../../extension-api/kinds.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { callExtension, EventEnrichment, ExtensionFailures, ExtensionRegistry, pastDeadline, type Domain } from '../registry/index.js';

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
  result: EvaluationResult;
  qualified: boolean;
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

/** The behaviors a domain action reads or changes: as it says, or those of the campaign and what their outcomes raise. */
function involved(action: Domain, rules: CompiledRules, campaignId: number, args: unknown): number[] {
  return action.handler.involved ? action.handler.involved(rules, campaignId, args) : performBehaviorsInvolved(rules, campaignId);
}

/**
 * Perform (contract §12): a domain action on one customer and one campaign, in one transaction. The action (the
 * built-in complete_campaign or an extension's) decides inside the transaction with the customer locked; the event,
 * the engine's result and the action's rows are written together, or nothing is.
 */
@Injectable()
export class PerformUseCase {
  constructor(
    private readonly pipeline: EvaluationPipeline,
    private readonly repository: PerformRepository,
    private readonly events: EvaluationRepository,
    private readonly enrichment: EventEnrichment,
    private readonly registry: ExtensionRegistry,
    private readonly failures: ExtensionFailures,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async execute(req: PerformRequest): Promise<PerformResponse> {
    const action = this.action(req.body);
    const args = req.body.args ?? {};
    const opts = options(req.query);
    const org = req.tenant.organizationId;
    if ('userId' in req.customer && !UUID.test(req.customer.userId)) throw AppError.notFound('user');
    const campaign = await this.repository.campaign(org, req.campaign);
    if (!campaign) throw AppError.notFound('campaign');
    // The event perform stores, as the enrichers leave it (before the customer is locked: they may take their time).
    const stored: EnrichableEvent = { name: action.name, attributes: {}, context: {} };
    const enriching = this.enrichment.enrich([stored], { organizationId: org, source: 'perform' });
    if (enriching) await enriching;
    const what = `domain action "${action.name}" (${action.source})`;
    // The extensions' failures the engine met for the action, recorded once the perform settles (answered or 422).
    let met: ExtensionFailureRecord[] = [];
    // The results the engine gave the action: the one it decides must be one of them.
    const given = new WeakSet<object>();
    const engine = <R extends EvaluationResult>(result: R): R => {
      met.push(...result.extensionFailures);
      given.add(result);
      return result;
    };
    const done = await this.pipeline.forCustomer<Done>({
      organizationId: org,
      customer: req.customer,
      write: true,
      requestId: req.requestId,
      involved: (rules) => involved(action, rules, campaign.id, args),
      decide: async ({ rules, customer, progress, now, uow, budgets }) => {
        met = [];
        // A repeat answers 409 even when the first perform completed the campaign (which would otherwise be a 422);
        // a repeat racing the first one for another customer is stopped by the unique index when it writes.
        const transactionId = req.body.transaction_id;
        if (transactionId !== undefined && (await this.events.transactionUsed(uow, req.tenant.apiKeyId, transactionId))) {
          throw new DuplicateTransaction(transactionId);
        }
        const multiOrgEnabled = req.tenant.multiOrgEnabled;
        const instance = this.instance(action.name, customer, now, multiOrgEnabled, stored);
        const input = { rules, customer: customer.snapshot, progress, campaignId: campaign.id, now, multiOrgEnabled, budgets, instance };
        const ctx: Omit<DomainActionContext, 'signal'> = {
          args,
          organizationId: org,
          campaignId: campaign.id,
          customer: customer.snapshot,
          externalId: customer.externalId,
          now,
          completeCampaign: () => engine(perform(input)),
          evaluate: (events) => {
            // Behaviors whose progress was not loaded would be evaluated from nothing, and their progress overwritten.
            const loaded = new Set(involved(action, rules, campaign.id, args));
            const missing = behaviorsInvolved(rules, events.map((e) => e.name)).filter((id) => !loaded.has(id));
            if (missing.length) throw new Error(`evaluates events that behaviors ${missing.join(', ')} listen to, which its involved() does not name`);
            const instances = events.map((e) => ({ name: e.name, count: 1, attributes: { ...e.attributes }, context: { ...instance.context, ...e.context }, occurredAt: now, day: null }));
            return engine(evaluate({ ...input, events: instances, qualify: false }));
          },
          query: (sql, params) => uow.query(sql, params),
        };
        // The signal is aborted at the deadline: the perform is answered 503 and its transaction rolled back, and the
        // action's statements are refused from then on.
        const failed = (error: unknown, message: string) =>
          this.failures.record(org, [{ kind: 'domain_action', extension: action.name, source: action.source, call: 'decide', at: `campaign ${campaign.id}`, message, error, campaignId: campaign.id }]);
        const decision = await callExtension(
          what,
          this.config.extensionTimeoutMs,
          (signal) => action.handler.decide({ ...ctx, signal, query: (sql, params) => (signal.aborted ? Promise.reject(pastDeadline(signal)) : ctx.query(sql, params)) }),
          failed,
        );
        const { result, attributes, rows } = this.accepted(what, action, decision, given);
        const event = this.event(req, customer, campaign.id, { ...instance, attributes: { ...instance.attributes, ...attributes } });
        const qualified = 'qualified' in result && typeof result.qualified === 'boolean' ? result.qualified : performQualified(input);
        return {
          store: { events: [event], result, explain: false, processed: true, rows },
          extensionFailures: met,
          answer: () => ({ rules, result, qualified, progress: { ...progress, ...result.progress }, now }),
        };
      },
    }).catch((error: unknown) => {
      // Not committed (a 422 of the campaign an extension failed, say): what the engine met is recorded all the same.
      this.failures.record(org, met, { req_id: req.requestId });
      throw error;
    });
    return { status: 'ok', campaign: await this.answer(req, campaign, opts, done) };
  }

  /** The domain action the body names, with its args checked: 400 missing_data, not_available or validation. */
  private action(body: PerformBody): Domain {
    const domain = body.domain;
    if (domain === undefined || domain === null || domain === '') throw new AppError('missing_data', 'missing domain', [{ field: 'domain', message: 'is required' }]);
    const domains = this.registry.domains();
    const action = domains.get(domain);
    if (!action) {
      const names = [...domains.keys()].join(', ');
      throw new AppError('not_available', `domain "${domain}" is not available; available: ${names}`, [{ field: 'domain', message: `must be one of ${names}` }]);
    }
    const problems = Object.entries(action.check(body.args ?? {}));
    if (problems.length) {
      const details = problems.map(([member, message]) => ({ field: member ? `args.${member}` : 'args', message }));
      throw new AppError('validation', `args of ${domain}: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`, details);
    }
    return action;
  }

  /** The decision, or 422 failed_to_perform; rows only for the tables the action declared, a result the engine gave (else 500 naming it). */
  private accepted(
    what: string,
    action: Domain,
    decision: DomainActionDecision,
    given: WeakSet<object>,
  ): Omit<Exclude<DomainActionDecision, { failure: string }>, 'result'> & { result: EvaluationResult } {
    if ('failure' in decision) throw new AppError('failed_to_perform', decision.failure);
    const table = decision.rows?.find((r) => !action.tables.includes(r.table))?.table;
    if (table !== undefined) throw new AppError('internal_error', `${what} wrote rows to table "${table}", which it did not declare (tables: ${action.tables.join(', ') || 'none'})`);
    if (!given.has(decision.result)) throw new AppError('internal_error', `${what} decided a result the engine did not give it`);
    return { ...decision, result: decision.result as EvaluationResult };
  }

  /** The event perform stores and evaluates: named by the domain, as the enrichers left it, with the domain among its attributes. */
  private instance(domain: string, customer: LoadedCustomer, now: number, multiOrgEnabled: boolean, enriched: EnrichableEvent): EventInstance {
    const base = performInstance(customer.snapshot, now, multiOrgEnabled);
    return { ...base, name: domain, attributes: { ...enriched.attributes, domain }, context: { ...enriched.context, ...base.context } };
  }

  /** The one event perform writes (processed, source 'perform'); its ledger rows, offers and notifications hang on it. */
  private event(req: PerformRequest, customer: LoadedCustomer, campaignId: number, instance: EventInstance): EventToStore {
    return {
      apiKeyId: req.tenant.apiKeyId,
      source: 'perform',
      transactionId: req.body.transaction_id ?? null,
      instance,
      divisionId: req.tenant.multiOrgEnabled ? customer.snapshot.divisionId : null,
      campaignId,
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
    const { rules, result, qualified, progress, now } = done;
    const customer = result.customer;
    const compiled = rules.campaigns.get(campaign.id)!;
    const out: PerformCampaign = {
      campaign_id: campaign.id,
      campaign_permalink: campaign.permalink,
      name: campaign.name,
      status: campaign.status,
      starts_at: campaign.starts_at.toISOString(),
      ends_at: campaign.ends_at.toISOString(),
      qualified,
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
