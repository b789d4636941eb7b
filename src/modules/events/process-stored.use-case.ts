import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { namedQuery } from '../../common/database/named-query.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { compileRules, evaluate, type CustomerSnapshot, type EvaluationResult, type EventInstance, type ProgressMap } from '../../engine/index.js';
import { RulesCacheService } from '../campaigns/rules/rules-cache.service.js';
import { EventOutcome, EventsRepository, WriteRow } from './events.repository.js';
import { involvedBehaviors } from './involved-behaviors.js';
import { eventOutcome } from './v1-response.js';

interface StoredEventRow {
  id: string;
  organization_id: number;
  customer_id: string | null;
  campaign_id: number | null;
  name: string;
  count: string;
  attributes: Record<string, unknown>;
  context: EventInstance['context'];
  occurred_at: Date;
  qualify: boolean;
  multi_org_enabled: boolean;
  root_division_id: number;
}

/** An evaluation that evaluated nothing (every event of the group was out of scope). */
function emptyResult(customer: CustomerSnapshot): EvaluationResult {
  return evaluate({ rules: compileRules({ campaigns: [], offers: [], tiers: [], creatives: [], divisionAncestors: {} }), customer, progress: {}, events: [], now: 0, multiOrgEnabled: false });
}

export interface ProcessedSummary {
  processed: number;
  rejected: number;
  skipped: number;
}

/**
 * Evaluates stored events (V2, and V1 async=true) with the engine, as V1 does synchronously: per customer, one
 * transaction with the customer row locked, that customer's pending events in occurred_at order, and one statement
 * writing every result. Idempotent: only events still `pending` under the lock are evaluated, so a job delivered
 * twice, or a sweep re-queueing events a worker is already on, changes nothing the second time. Events whose
 * customer does not exist are marked `rejected` (customer_not_found) and never retried.
 */
@Injectable()
export class ProcessStoredEventsUseCase {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly repository: EventsRepository,
    private readonly rulesCache: RulesCacheService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Events whose job ran out of attempts: `failed` with the error, until `npm run cli -- events:replay --failed`. */
  async markFailed(eventIds: string[], reason: string): Promise<void> {
    await this.db.query(`UPDATE events SET status = 'failed', reason = $2 WHERE id = ANY($1) AND status = 'pending'`, [eventIds, reason.slice(0, 500)]);
  }

  async execute(eventIds: string[]): Promise<ProcessedSummary> {
    const summary: ProcessedSummary = { processed: 0, rejected: 0, skipped: 0 };
    const rejected: Array<{ id: string }> = await this.db.query(
      `WITH r AS (
         UPDATE events SET status = 'rejected', reason = 'customer_not_found', processed_at = now(), attempts = attempts + 1
          WHERE id = ANY($1) AND status = 'pending' AND customer_id IS NULL RETURNING id
       ) SELECT id FROM r`,
      [eventIds],
    );
    summary.rejected = rejected.length;
    const customers: Array<{ customer_id: string }> = await this.db.query(
      `SELECT DISTINCT customer_id FROM events WHERE id = ANY($1) AND status = 'pending' AND customer_id IS NOT NULL`,
      [eventIds],
    );
    for (const { customer_id } of customers) {
      const done = await this.db.transaction((em) => this.processCustomer(em, customer_id, eventIds));
      summary.processed += done;
    }
    summary.skipped = eventIds.length - summary.processed - summary.rejected;
    return summary;
  }

  private async processCustomer(em: EntityManager, customerId: string, eventIds: string[]): Promise<number> {
    const events = await namedQuery<StoredEventRow>(
      em,
      'pending-events-of-customer',
      `SELECT e.id, e.organization_id, e.customer_id, e.campaign_id, e.name, e.count, e.attributes, e.context, e.occurred_at, e.qualify,
              o.multi_org_enabled, d.id AS root_division_id
         FROM events e
         JOIN organizations o ON o.id = e.organization_id
         JOIN divisions d ON d.organization_id = e.organization_id AND d.parent_id IS NULL
        WHERE e.id = ANY($1) AND e.customer_id = $2 AND e.status = 'pending'
        ORDER BY e.occurred_at, e.id`,
      [eventIds, customerId],
    );
    if (events.length === 0) return 0;
    const first = events[0];
    const customer = await this.repository.customer(em, first.organization_id, { userId: customerId }, true);
    if (!customer) return 0;
    // Re-read under the lock: another worker may have processed them while this one waited.
    const pending = new Set(
      (await em.query(`SELECT id FROM events WHERE id = ANY($1) AND status = 'pending' FOR UPDATE`, [events.map((e) => e.id)])).map(
        (r: { id: string }) => r.id,
      ),
    );
    const todo = events.filter((e) => pending.has(e.id));
    if (todo.length === 0) return 0;
    const rules = await this.rulesCache.get(first.organization_id, customer.rulesVersion);
    const instances = todo.map(
      (e): EventInstance => ({
        name: e.name,
        count: Number(e.count),
        attributes: e.attributes,
        context: e.context,
        occurredAt: e.occurred_at.getTime(),
        day: typeof e.attributes.occurred_on === 'string' ? e.attributes.occurred_on : null,
      }),
    );
    const progress: ProgressMap = await this.repository.progress(em, customerId, [
      ...new Set(todo.flatMap((e, i) => involvedBehaviors(rules, [instances[i]], e.campaign_id))),
    ]);
    // One evaluation per scope (V1 async events may name a campaign); state carries from one to the next.
    let snapshot = customer.snapshot;
    let state = progress;
    const outcomes: EventOutcome[] = [];
    let last = null as ReturnType<typeof evaluate> | null;
    const credits: ReturnType<typeof evaluate>['credits'] = [];
    const offers: ReturnType<typeof evaluate>['offersIssued'] = [];
    const notifications: ReturnType<typeof evaluate>['notifications'] = [];
    const changed: ProgressMap = {};
    todo.forEach((event, i) => {
      // A V1 async event scoped to a campaign that is no longer live evaluates nothing (as V1 sync answers 404).
      if (event.campaign_id !== null && !rules.campaigns.has(event.campaign_id)) {
        outcomes.push({ status: 'processed', reason: 'No_active_campaign_found', result: null, pointsEarned: 0 });
        return;
      }
      const result = evaluate({
        rules,
        customer: snapshot,
        progress: state,
        events: [instances[i]],
        now: Date.now(),
        multiOrgEnabled: event.multi_org_enabled,
        campaignId: event.campaign_id,
        qualify: event.qualify,
      });
      outcomes.push(eventOutcome(result, 0, false));
      credits.push(...result.credits.map((c) => ({ ...c, eventIndex: i })));
      offers.push(...result.offersIssued.map((o) => ({ ...o, eventIndex: i })));
      notifications.push(...result.notifications.map((n) => ({ ...n, eventIndex: i })));
      Object.assign(changed, result.progress);
      snapshot = result.customer;
      state = { ...state, ...result.progress };
      last = result;
    });
    const combined = { ...(last ?? emptyResult(snapshot)), customer: snapshot, progress: changed, credits, offersIssued: offers, notifications };
    const query = this.repository.processedQuery(first.organization_id, todo.map((e) => e.id), outcomes, customer.snapshot, combined);
    await namedQuery<WriteRow>(em, query.name, query.text, query.values);
    this.logger.debug({ customer_id: customerId, events: todo.length }, 'stored events processed');
    return todo.length;
  }
}
