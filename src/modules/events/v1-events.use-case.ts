import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { CLOCK, type Clock } from '../../common/clock.js';
import { AppError } from '../../common/errors/app-error.js';
import type { Tenant } from '../../common/http/request-context.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { toDate } from '../../common/validation/validators.js';
import { inSlices } from '../../common/scheduling/in-slices.js';
import { checkEligibility, evaluateStepwise, instancesFromV1, type CompiledRules, type EvaluateInput, type EventInstance } from '../../engine/index.js';
import { EventsJob, QueueName } from '../../queues/queue-names.js';
import { EventEnrichment } from '../registry/index.js';
import { EventCounters } from '../metrics/index.js';
import { DuplicateTransaction, EvaluationPipeline, EvaluationRepository, type CustomerKey, type Decision, type EventToStore, type Loaded } from '../evaluation/index.js';
import type { V1AsyncResponse, V1EventResponse, V1QualificationResponse } from './dto/v1-answer.dto.js';
import type { V1EventBody } from './dto/v1-event.dto.js';
import { enqueueEvents } from './enqueue.js';
import { CampaignKey, instanceDivisions, scopedCampaignId, scopedCampaignIdOrNull } from './scope.js';
import { v1Response } from './v1-response.js';

export interface V1Request {
  tenant: Tenant;
  customer: CustomerKey;
  campaign: CampaignKey | null;
  body: V1EventBody;
  /** Query qualify=true: check eligibility only. */
  checkOnly: boolean;
  /** Query async=true: store, queue, answer at once. */
  async: boolean;
  explain: boolean;
  requestId: string;
}

export type V1Answer = V1EventResponse | V1AsyncResponse | V1QualificationResponse;

/** Submitting V1 events (contract §7-§8): every mode of the six V1 routes, each a way into the evaluation pipeline. */
@Injectable()
export class V1EventsUseCase {
  constructor(
    private readonly pipeline: EvaluationPipeline,
    private readonly repository: EvaluationRepository,
    @InjectQueue(QueueName.Events) private readonly queue: Queue,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly counters: EventCounters,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly enrichment: EventEnrichment,
  ) {}

  async execute(req: V1Request): Promise<V1Answer> {
    const events = req.body.events;
    if (!events || Object.keys(events).length === 0 || (Array.isArray(events) && events.length === 0)) throw new AppError('missing_event_data', 'the request has no event data: send events');
    const occurredAt = req.body.date ? toDate(req.body.date).getTime() : this.clock.now();
    const instances = instancesFromV1(events, occurredAt);
    const enriching = this.enrichment.enrich(instances, { organizationId: req.tenant.organizationId, source: 'v1' });
    if (enriching) await enriching;
    if (req.checkOnly) return this.check(req, instances);
    // read_only stores nothing, whatever else the request asks: it wins over async=true.
    if (req.async && req.body.read_only !== true) return this.enqueue(req, instances);
    return this.process(req, instances);
  }

  /**
   * Synchronous evaluation: the customer locked, evaluated, every change written in the same transaction; read_only
   * evaluates the same way and writes nothing (a used transaction_id still answers 409).
   */
  private process(req: V1Request, instances: EventInstance[]): Promise<V1EventResponse> {
    const readOnly = req.body.read_only === true;
    return this.pipeline.forCustomer<V1EventResponse>({
      organizationId: req.tenant.organizationId,
      customer: req.customer,
      write: !readOnly,
      requestId: req.requestId,
      involved: { events: instances, campaignId: (rules) => scopedCampaignIdOrNull(rules, req.campaign) },
      decide: async (loaded): Promise<Decision<V1EventResponse>> => {
        const { rules, progress } = loaded;
        const campaignId = scopedCampaignId(rules, req.campaign);
        const divisions = this.divisions(req, rules, instances);
        // In slices: a request at the limits (100 instances against thousands of goals) never holds the loop long.
        const result = await inSlices(evaluateStepwise(this.engineInput(req, loaded, instances, campaignId)));
        const answer = (notificationIds: Array<number | null>) => v1Response(rules, result, { ...progress, ...result.progress }, notificationIds, req.explain);
        if (readOnly) {
          const used = req.body.transaction_id ? await this.repository.transactionUsed(loaded.uow, req.tenant.apiKeyId, req.body.transaction_id) : false;
          if (used) throw new DuplicateTransaction(req.body.transaction_id!);
          return { store: null, extensionFailures: result.extensionFailures, answer: () => answer(result.notifications.map(() => null)) };
        }
        return {
          store: { events: instances.map((instance, i) => this.event(req, 'v1', instance, divisions[i], campaignId)), result, explain: req.explain },
          counts: { accepted: instances.length, processed: instances.length },
          extensionFailures: result.extensionFailures,
          answer: (written) => answer(written!.notificationIds),
        };
      },
    });
  }

  /** qualify=true: the campaign states the events would meet; nothing is stored or processed. */
  private check(req: V1Request, instances: EventInstance[]): Promise<V1QualificationResponse> {
    return this.pipeline.forCustomer<V1QualificationResponse>({
      organizationId: req.tenant.organizationId,
      customer: req.customer,
      write: false,
      involved: { events: instances, campaignId: (rules) => scopedCampaignIdOrNull(rules, req.campaign) },
      decide: (loaded) => {
        const campaignId = scopedCampaignId(loaded.rules, req.campaign);
        this.divisions(req, loaded.rules, instances);
        const eligibility = checkEligibility(this.engineInput(req, loaded, instances, campaignId));
        const qualified = eligibility.state === 'qualified';
        const notifications = qualified
          ? []
          : eligibility.campaigns.map((c) => ({ type: 'qualification' as const, campaign_id: c.campaignId, data: { state: c.state, message: c.detail } }));
        return { store: null, extensionFailures: eligibility.extensionFailures, answer: () => ({ status: 'ok', qualified, state: eligibility.state, notifications }) };
      },
    });
  }

  /** async=true: the events are stored (pending) before the answer, then queued for a worker. */
  private async enqueue(req: V1Request, instances: EventInstance[]): Promise<V1AsyncResponse> {
    const org = req.tenant.organizationId;
    const stored = await this.pipeline.storePending(org, req.customer, (rules) => {
      const campaignId = scopedCampaignId(rules, req.campaign);
      const divisions = this.divisions(req, rules, instances);
      return instances.map((instance, i) => this.event(req, 'v1_async', instance, divisions[i], campaignId));
    });
    this.counters.add({ accepted: stored.length });
    await enqueueEvents(this.queue, stored.map((key) => ({ ...key, customerId: 'request', organizationId: org })), EventsJob.Evaluate, 'v1', true, req.requestId).catch((error: Error) =>
      this.logger.warn({ req_id: req.requestId, err: error.message, event_ids: stored.map((k) => k.id) }, 'events stored but not queued; the sweeper will queue them'),
    );
    return { status: 'ok' };
  }

  private engineInput(req: V1Request, loaded: Loaded, instances: EventInstance[], campaignId: number | null): EvaluateInput {
    return {
      rules: loaded.rules,
      customer: loaded.customer.snapshot,
      progress: loaded.progress,
      events: instances,
      now: loaded.now,
      multiOrgEnabled: req.tenant.multiOrgEnabled,
      campaignId,
      qualify: req.body.qualify === true,
      budgets: loaded.budgets,
      explain: req.explain,
    };
  }

  private divisions(req: V1Request, rules: CompiledRules, instances: EventInstance[]): Array<number | null> {
    return instanceDivisions(req.tenant, rules, instances, (i) => `events.${instances[i].name}.context.division_id`);
  }

  private event(req: V1Request, source: 'v1' | 'v1_async', instance: EventInstance, divisionId: number | null, campaignId: number | null): EventToStore {
    return {
      apiKeyId: req.tenant.apiKeyId,
      source,
      // One request, one idempotency key, on every instance (a reversal finds them all by it); claimed once.
      transactionId: req.body.transaction_id ?? null,
      instance,
      divisionId,
      campaignId,
      requestId: req.requestId,
      qualify: req.body.qualify === true,
    };
  }
}
