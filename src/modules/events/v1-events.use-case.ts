import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { AppError } from '../../common/errors/app-error.js';
import type { Tenant } from '../../common/http/request-context.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { toDate } from '../../common/validation/validators.js';
import { pipelined } from '../../common/database/pipelined.js';
import { withPoolClient } from '../../common/database/pool-client.js';
import {
  checkEligibility,
  evaluate,
  instancesFromV1,
  type CompiledRules,
  type EvaluationResult,
  type EventInstance,
  type ProgressMap,
} from '../../engine/index.js';
import { EventsJob, QueueName } from '../../queues/queue-names.js';
import { enqueueDeliveries } from '../webhooks/enqueue-deliveries.js';
import { webhookOccurrences } from '../webhooks/occurrences.js';
import { WebhookSubscriptions } from '../webhooks/subscriptions.js';
import { RulesCacheService } from '../campaigns/rules/rules-cache.service.js';
import type { V1EventBody, V1EventResponse } from './dto/v1-event.dto.js';
import { CustomerKey, CustomerRow, EventRow, EventsRepository, LockedCustomer, WriteRow } from './events.repository.js';
import { CampaignKey, instanceDivisions, scopedCampaignId, scopedCampaignIdOrNull } from './scope.js';
import { EventCounters } from '../metrics/event-counters.js';
import { enqueueEvents } from './enqueue.js';
import { involvedBehaviors } from './involved-behaviors.js';
import { eventOutcome, v1Response } from './v1-response.js';

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

export type V1Answer = V1EventResponse | { status: 'ok' } | QualificationAnswer;

export interface QualificationAnswer {
  status: 'ok';
  qualified: boolean;
  state: string;
  notifications: Array<{ type: 'qualification'; campaign_id: number; data: { state: string; message: string } }>;
}

/** A unique violation of (api key, transaction id), whether it came through TypeORM or straight from pg. */
function isDuplicateTransaction(error: unknown): boolean {
  const driver = (error instanceof QueryFailedError ? error.driverError : error) as { code?: string; constraint?: string } | null;
  return driver?.code === '23505' && driver.constraint === 'events_transaction';
}

/** Submitting V1 events (contract §7-§8): every mode of the six V1 routes. */
@Injectable()
export class V1EventsUseCase {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly repository: EventsRepository,
    private readonly rulesCache: RulesCacheService,
    @InjectQueue(QueueName.Events) private readonly queue: Queue,
    @InjectQueue(QueueName.Webhooks) private readonly webhooksQueue: Queue,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly counters: EventCounters,
    private readonly subscriptions: WebhookSubscriptions,
  ) {}

  async execute(req: V1Request): Promise<V1Answer> {
    const events = req.body.events;
    if (!events || Object.keys(events).length === 0 || (Array.isArray(events) && events.length === 0)) throw new AppError('missing_event_data', 'the request has no event data: send events');
    // read_only stores nothing, whatever else the request asks: it wins over async=true.
    const occurredAt = req.body.date ? toDate(req.body.date).getTime() : Date.now();
    const instances = instancesFromV1(events, occurredAt);
    if (req.checkOnly) return this.check(req, instances);
    if (req.async && req.body.read_only !== true) return this.enqueue(req, instances);
    return this.process(req, instances);
  }

  /** Synchronous evaluation in one transaction, the customer row locked; read_only evaluates and writes nothing. */
  private async process(req: V1Request, instances: EventInstance[]): Promise<V1EventResponse> {
    if (req.body.read_only === true) return this.db.transaction((em) => this.preview(em, req, instances));
    const org = req.tenant.organizationId;
    const lockQuery = this.repository.customerQuery(org, req.customer, true);
    if (!lockQuery) throw AppError.notFound('user');
    const hint = await this.rulesCache.peek(org)?.catch(() => null);
    const guess = hint ? involvedBehaviors(hint, instances, scopedCampaignIdOrNull(hint, req.campaign)) : [];
    return withPoolClient(this.db, async (client) => {
      let open = true;
      try {
        // Round trip 1, one write: BEGIN, the locking read of the customer, and the progress of the behaviors the last
        // compiled rules say the events involve. The progress statement runs once the lock is held, so it sees what
        // the request we may have waited for wrote.
        const [, locked, read] = await pipelined(client, [{ text: 'BEGIN' }, lockQuery, this.repository.progressByKeyQuery(org, req.customer, guess)]);
        const customer = this.repository.parseCustomer(locked.rows as CustomerRow[], []);
        if (!customer) throw AppError.notFound('user');
        const rules = await this.rulesCache.get(org, customer.rulesVersion);
        const campaignId = scopedCampaignId(rules, req.campaign);
        const divisions = this.divisions(req, rules, instances);
        const missing = involvedBehaviors(rules, instances, campaignId).filter((id) => !guess.includes(id));
        const progress = this.repository.parseProgress(read.rows);
        if (missing.length) Object.assign(progress, this.repository.parseProgress((await client.query(this.repository.progressQuery(customer.snapshot.id, missing))).rows));
        const result = this.evaluate(req, rules, customer, progress, instances, campaignId);
        const rows = this.processedRows(req, customer, instances, divisions, campaignId, result);
        // Round trip 2, one write: every change and COMMIT.
        const subscribed = await this.subscriptions.typesFor(org, customer.rulesVersion);
        const webhooks = webhookOccurrences(rules, customer.snapshot, result, customer.externalId, subscribed);
        const [written] = await pipelined(client, [this.repository.writeQuery(rows, customer.snapshot, result, webhooks), { text: 'COMMIT' }]);
        open = false;
        const { notificationIds, deliveryIds } = this.repository.parseWrite(written.rows as WriteRow[]);
        this.counters.add({ accepted: rows.length, processed: rows.length });
        this.queueDeliveries(req.requestId, deliveryIds);
        return v1Response(rules, result, { ...progress, ...result.progress }, notificationIds, req.explain);
      } catch (error) {
        if (open) await client.query('ROLLBACK').catch(() => undefined);
        if (isDuplicateTransaction(error)) throw this.duplicate(req.body.transaction_id!);
        throw error;
      }
    });
  }

  /** read_only: the same evaluation, answered as if processed; the transaction only reads. */
  private async preview(em: EntityManager, req: V1Request, instances: EventInstance[]): Promise<V1EventResponse> {
    const { customer, rules, campaignId, progress } = await this.load(em, req, instances);
    this.divisions(req, rules, instances);
    const result = this.evaluate(req, rules, customer, progress, instances, campaignId);
    if (req.body.transaction_id && (await this.repository.transactionUsed(em, req.tenant.apiKeyId, req.body.transaction_id))) {
      throw this.duplicate(req.body.transaction_id);
    }
    return v1Response(rules, result, { ...progress, ...result.progress }, result.notifications.map(() => null), req.explain);
  }

  private evaluate(req: V1Request, rules: CompiledRules, customer: LockedCustomer, progress: ProgressMap, instances: EventInstance[], campaignId: number | null) {
    return evaluate({
      rules,
      customer: customer.snapshot,
      progress,
      events: instances,
      now: Date.now(),
      multiOrgEnabled: req.tenant.multiOrgEnabled,
      campaignId,
      qualify: req.body.qualify === true,
    });
  }

  /** The event rows of a processed request, each with what its instance earned. */
  private processedRows(
    req: V1Request,
    customer: LockedCustomer,
    instances: EventInstance[],
    divisions: Array<number | null>,
    campaignId: number | null,
    result: EvaluationResult,
  ): EventRow[] {
    return instances.map((instance, i) => this.row(req, customer, instance, i, divisions[i], campaignId, eventOutcome(result, i, req.explain)));
  }

  /**
   * For the paths that write nothing (read_only, the qualify check): the customer, the rules of its organization's
   * current version, the scoped campaign, and the progress the evaluation reads, read with the customer for the
   * behaviors the last compiled rules name; only rows missing from that guess are read after.
   */
  private async load(em: EntityManager, req: V1Request, instances: EventInstance[]) {
    const hint = await this.rulesCache.peek(req.tenant.organizationId)?.catch(() => null);
    const guess = hint ? involvedBehaviors(hint, instances, scopedCampaignIdOrNull(hint, req.campaign)) : [];
    const customer = await this.repository.customer(em, req.tenant.organizationId, req.customer, false, guess);
    if (!customer) throw AppError.notFound('user');
    const rules = await this.rulesCache.get(req.tenant.organizationId, customer.rulesVersion);
    const campaignId = scopedCampaignId(rules, req.campaign);
    const missing = involvedBehaviors(rules, instances, campaignId).filter((id) => !customer.progressOf.includes(id));
    const progress = missing.length ? { ...customer.progress, ...(await this.repository.progress(em, customer.snapshot.id, missing)) } : customer.progress;
    return { customer, rules, campaignId, progress };
  }

  /** async=true: the events are stored (pending) before the answer, then queued for a worker. */
  private async enqueue(req: V1Request, instances: EventInstance[]): Promise<{ status: 'ok' }> {
    const eventIds = await this.db
      .transaction(async (em) => {
        const customer = await this.repository.customer(em, req.tenant.organizationId, req.customer, false);
        if (!customer) throw AppError.notFound('user');
        const rules = await this.rulesCache.get(req.tenant.organizationId, customer.rulesVersion);
        const campaignId = scopedCampaignId(rules, req.campaign);
        const divisions = this.divisions(req, rules, instances);
        const rows = instances.map((instance, i) =>
          this.row(req, customer, instance, i, divisions[i], campaignId, { status: 'pending', reason: null, result: null, pointsEarned: 0 }, 'v1_async'),
        );
        return this.repository.insertEvents(em, rows);
      })
      .catch((error: unknown) => {
        if (isDuplicateTransaction(error)) throw this.duplicate(req.body.transaction_id!);
        throw error;
      });
    this.counters.add({ accepted: eventIds.length });
    await enqueueEvents(this.queue, eventIds.map((id) => ({ id, customer_id: 'request' })), EventsJob.Evaluate, 'v1').catch((error: Error) =>
      this.logger.warn({ req_id: req.requestId, err: error.message, event_ids: eventIds }, 'events stored but not queued; the sweeper will queue them'),
    );
    return { status: 'ok' };
  }

  /** qualify=true: the campaign states the events would meet; nothing is stored or processed. */
  private async check(req: V1Request, instances: EventInstance[]): Promise<QualificationAnswer> {
    const { customer, rules, campaignId, progress } = await this.load(this.db.manager, req, instances);
    this.divisions(req, rules, instances);
    const eligibility = checkEligibility({
      rules,
      customer: customer.snapshot,
      progress,
      events: instances,
      now: Date.now(),
      multiOrgEnabled: req.tenant.multiOrgEnabled,
      campaignId,
      qualify: req.body.qualify === true,
    });
    const qualified = eligibility.state === 'qualified';
    return {
      status: 'ok',
      qualified,
      state: eligibility.state,
      notifications: qualified
        ? []
        : eligibility.campaigns.map((c) => ({ type: 'qualification' as const, campaign_id: c.campaignId, data: { state: c.state, message: c.detail } })),
    };
  }

  private divisions(req: V1Request, rules: CompiledRules, instances: EventInstance[]): Array<number | null> {
    return instanceDivisions(req.tenant, rules, instances, (i) => `events.${instances[i].name}.context.division_id`);
  }

  private row(
    req: V1Request,
    customer: LockedCustomer,
    instance: EventInstance,
    index: number,
    divisionId: number | null,
    campaignId: number | null,
    outcome: Pick<EventRow, 'status' | 'reason' | 'result' | 'pointsEarned'>,
    source: EventRow['source'] = 'v1',
  ): EventRow {
    return {
      organizationId: req.tenant.organizationId,
      apiKeyId: req.tenant.apiKeyId,
      customerId: customer.snapshot.id,
      userRef: customer.externalId,
      source,
      // One request, one idempotency key: the first instance's row claims it.
      transactionId: index === 0 ? (req.body.transaction_id ?? null) : null,
      instance,
      divisionId,
      campaignId,
      requestId: req.requestId,
      qualify: req.body.qualify === true,
      ...outcome,
    };
  }

  /**
   * Webhook deliveries committed with the evaluation go to their queue without holding up the answer; a failure to
   * queue is only logged (the webhooks sweeper queues deliveries left open).
   */
  private queueDeliveries(requestId: string, deliveryIds: string[]): void {
    if (deliveryIds.length === 0) return;
    enqueueDeliveries(this.webhooksQueue, deliveryIds).catch((error: Error) =>
      this.logger.warn({ req_id: requestId, err: error.message, delivery_ids: deliveryIds }, 'webhook deliveries stored but not queued; the sweeper will queue them'),
    );
  }

  private duplicate(transactionId: string): AppError {
    return new AppError('duplicate_transaction', `transaction_id ${transactionId} has already been processed`);
  }
}
