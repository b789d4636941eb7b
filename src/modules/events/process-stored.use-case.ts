import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { pipelined } from '../../common/database/pipelined.js';
import { withPoolClient } from '../../common/database/pool-client.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { compileRules, evaluate, type CompiledRules, type EvaluationResult, type EventInstance, type ProgressMap } from '../../engine/index.js';
import { RulesCacheService } from '../campaigns/rules/rules-cache.service.js';
import { CustomerOutcome, CustomerRow, EventOutcome, EventsRepository, LockedCustomer, WriteRow } from './events.repository.js';
import { involvedBehaviors } from './involved-behaviors.js';
import { eventOutcome } from './v1-response.js';
import { webhookOccurrences, type WebhookEventType, type WebhookOccurrence } from '../webhooks/occurrences.js';
import { WebhookSubscriptions } from '../webhooks/subscriptions.js';

interface StoredEventRow {
  id: string;
  organization_id: number;
  customer_id: string;
  campaign_id: number | null;
  name: string;
  count: string;
  attributes: Record<string, unknown>;
  context: EventInstance['context'];
  occurred_at: Date;
  qualify: boolean;
  multi_org_enabled: boolean;
  created_at: Date;
}

/** One customer's pending events of a job, with what the evaluation needs. */
interface CustomerBatch {
  customer: LockedCustomer;
  organizationId: number;
  events: StoredEventRow[];
  instances: EventInstance[];
  /** The organization's compiled rules at the customer's rules version, once loaded. */
  rules?: CompiledRules;
  /** The webhook event types the organization subscribes to, once loaded. */
  subscribed?: ReadonlySet<WebhookEventType>;
}

export interface ProcessedSummary {
  processed: number;
  rejected: number;
  skipped: number;
  /** For each event processed: seconds from stored to its evaluation committed. */
  lagSeconds: number[];
  /** Webhook deliveries the job wrote to the outbox, to queue. */
  deliveryIds: string[];
}

const NO_RULES = compileRules({ campaigns: [], offers: [], tiers: [], creatives: [], divisionAncestors: {} });

/**
 * Evaluates stored events (V2, and V1 async=true) with the engine, as V1 does synchronously, for every customer of a
 * job at once: one transaction locks the job's customers (in id order, so workers never deadlock; FOR NO KEY UPDATE,
 * so the foreign-key checks of events being stored for them do not wait, nor deadlock with it), reads their
 * pending events and their progress in the behaviors involved, evaluates each customer's events in occurred_at
 * order, and writes every result in one statement. Three round trips per job, whatever its number of customers.
 * Idempotent: only events still `pending` once the locks are held are evaluated, so a job delivered twice, or a
 * sweep re-queueing events a worker is already on, changes nothing the second time. Events whose customer does not
 * exist are marked `rejected` (customer_not_found) and never retried.
 */
@Injectable()
export class ProcessStoredEventsUseCase {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly repository: EventsRepository,
    private readonly rulesCache: RulesCacheService,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly subscriptions: WebhookSubscriptions,
  ) {}

  /** Events whose job ran out of attempts: `failed` with the error, until `npm run cli -- events:replay --failed`. */
  async markFailed(eventIds: string[], reason: string): Promise<void> {
    await this.db.query(`UPDATE events SET status = 'failed', reason = $2 WHERE id = ANY($1) AND status = 'pending'`, [eventIds, reason.slice(0, 500)]);
  }

  /** The events still pending, one list per customer (in occurred_at order). */
  async pendingByCustomer(eventIds: string[]): Promise<string[][]> {
    const rows: Array<{ ids: string[] }> = await this.db.query(
      `SELECT array_agg(id ORDER BY occurred_at, id) AS ids FROM events
        WHERE id = ANY($1) AND status = 'pending' AND customer_id IS NOT NULL GROUP BY customer_id ORDER BY min(id)`,
      [eventIds],
    );
    return rows.map((r) => r.ids.map(String));
  }

  async execute(eventIds: string[]): Promise<ProcessedSummary> {
    const rejected: Array<{ id: string }> = await this.db.query(
      `WITH r AS (
         UPDATE events SET status = 'rejected', reason = 'customer_not_found', processed_at = now(), attempts = attempts + 1
          WHERE id = ANY($1) AND status = 'pending' AND customer_id IS NULL RETURNING id
       ) SELECT id FROM r`,
      [eventIds],
    );
    const { storedAt, deliveryIds } = await withPoolClient(this.db, (client) => this.processJob(client, eventIds));
    const now = Date.now();
    const processed = storedAt.length;
    return {
      processed,
      rejected: rejected.length,
      skipped: eventIds.length - processed - rejected.length,
      lagSeconds: storedAt.map((at) => (now - at.getTime()) / 1000),
      deliveryIds,
    };
  }

  /** Answers when each event it processed was stored, and the webhook deliveries written. */
  private async processJob(client: PoolClient, eventIds: string[]): Promise<{ storedAt: Date[]; deliveryIds: string[] }> {
    let open = true;
    try {
      // Round trip 1: lock the customers, then (a later statement, so it sees what earlier lock holders committed)
      // read the events still pending.
      const [, locked, pending] = await pipelined(client, [
        { text: 'BEGIN' },
        {
          name: 'lock-customers-of-events',
          text: `SELECT c.id, c.external_id, c.time_zone, c.division_id, c.tags, c.attributes, c.available_points, c.lifetime_points,
                        c.tier_id, c.qualified_campaign_ids, c.completed_campaign_ids, o.rules_version, NULL AS progress
                   FROM customers c JOIN organizations o ON o.id = c.organization_id
                  WHERE c.id IN (SELECT customer_id FROM events WHERE id = ANY($1) AND status = 'pending')
                  ORDER BY c.id
                    FOR NO KEY UPDATE OF c`,
          values: [eventIds],
        },
        {
          name: 'pending-events',
          text: `SELECT e.id, e.organization_id, e.customer_id, e.campaign_id, e.name, e.count, e.attributes, e.context, e.occurred_at, e.qualify,
                        e.created_at, o.multi_org_enabled
                   FROM events e JOIN organizations o ON o.id = e.organization_id
                  WHERE e.id = ANY($1) AND e.status = 'pending' AND e.customer_id IS NOT NULL
                  ORDER BY e.customer_id, e.occurred_at, e.id`,
          values: [eventIds],
        },
      ]);
      const batches = this.batches(locked.rows as CustomerRow[], pending.rows as StoredEventRow[]);
      if (batches.length === 0) {
        open = false;
        await client.query('COMMIT');
        return { storedAt: [], deliveryIds: [] };
      }
      for (const batch of batches) {
        batch.rules = await this.rulesCache.get(batch.organizationId, batch.customer.rulesVersion);
        batch.subscribed = await this.subscriptions.typesFor(batch.organizationId, batch.customer.rulesVersion);
      }
      // Round trip 2: the progress of every customer in the behaviors its events involve.
      const behaviorIds = new Set(batches.flatMap((b) => b.events.flatMap((e, i) => involvedBehaviors(b.rules!, [b.instances[i]], e.campaign_id))));
      const read = await client.query(this.repository.progressOfManyQuery(batches.map((b) => b.customer.snapshot.id), [...behaviorIds]));
      const progress = new Map<string, ProgressMap>();
      for (const row of read.rows as Array<{ customer_id: string; behavior_id: number; state: ProgressMap[number] }>) {
        const ofCustomer = progress.get(row.customer_id) ?? {};
        ofCustomer[row.behavior_id] = row.state;
        progress.set(row.customer_id, ofCustomer);
      }
      const eventIdsInOrder: string[] = [];
      const outcomes: EventOutcome[] = [];
      const customers: CustomerOutcome[] = [];
      for (const batch of batches) {
        const evaluated = this.evaluateCustomer(batch, batch.rules!, progress.get(batch.customer.snapshot.id) ?? {});
        customers.push({
          organizationId: batch.organizationId,
          before: batch.customer.snapshot,
          result: evaluated.result,
          firstIndex: outcomes.length,
          webhooks: evaluated.webhooks,
        });
        eventIdsInOrder.push(...batch.events.map((e) => e.id));
        outcomes.push(...evaluated.outcomes);
      }
      // Round trip 3: every result and COMMIT.
      const [written] = await pipelined(client, [this.repository.processedQuery(eventIdsInOrder, outcomes, customers), { text: 'COMMIT' }]);
      open = false;
      this.logger.debug({ customers: batches.length, events: outcomes.length }, 'stored events processed');
      return { storedAt: batches.flatMap((b) => b.events.map((e) => e.created_at)), deliveryIds: this.repository.parseWrite(written.rows as WriteRow[]).deliveryIds };
    } catch (error) {
      if (open) await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  /** Pending events grouped by customer, for the customers this transaction locked (in the events' order). */
  private batches(locked: CustomerRow[], pending: StoredEventRow[]): CustomerBatch[] {
    const customers = new Map(locked.map((row) => [row.id, this.repository.parseCustomer([row], [])!]));
    const batches = new Map<string, CustomerBatch>();
    for (const event of pending) {
      const customer = customers.get(event.customer_id);
      // Pending now but not when the locks were taken (replayed in between): left for the job that replays it.
      if (!customer) continue;
      let batch = batches.get(event.customer_id);
      if (!batch) batches.set(event.customer_id, (batch = { customer, organizationId: event.organization_id, events: [], instances: [] }));
      batch.events.push(event);
      batch.instances.push({
        name: event.name,
        count: Number(event.count),
        attributes: event.attributes,
        context: event.context,
        occurredAt: event.occurred_at.getTime(),
        day: typeof event.attributes.occurred_on === 'string' ? event.attributes.occurred_on : null,
      });
    }
    return [...batches.values()];
  }

  /**
   * One customer's events, one evaluation per event (a V1 async event may name a campaign), state carried from one
   * to the next; answers each event's outcome and the combined result (event indexes relative to the customer's list).
   */
  private evaluateCustomer(batch: CustomerBatch, rules: CompiledRules, progress: ProgressMap) {
    let snapshot = batch.customer.snapshot;
    let state = progress;
    const outcomes: EventOutcome[] = [];
    const webhooks: WebhookOccurrence[] = [];
    const combined: EvaluationResult = evaluate({ rules: NO_RULES, customer: snapshot, progress: {}, events: [], now: 0, multiOrgEnabled: false });
    batch.events.forEach((event, i) => {
      // A V1 async event scoped to a campaign that is no longer live evaluates nothing (as V1 sync answers 404).
      if (event.campaign_id !== null && !rules.campaigns.has(event.campaign_id)) {
        outcomes.push({ status: 'processed', reason: 'No_active_campaign_found', result: null, pointsEarned: 0 });
        return;
      }
      const result = evaluate({
        rules,
        customer: snapshot,
        progress: state,
        events: [batch.instances[i]],
        now: Date.now(),
        multiOrgEnabled: event.multi_org_enabled,
        campaignId: event.campaign_id,
        qualify: event.qualify,
      });
      outcomes.push(eventOutcome(result, 0, false));
      // Each event's webhook events, built from its own evaluation: its notifications follow those of earlier events.
      const notificationsBefore = combined.notifications.length;
      webhooks.push(
        ...webhookOccurrences(rules, snapshot, result, batch.customer.externalId, batch.subscribed!).map((w) => ({
          ...w,
          eventIndex: i,
          notificationIndex: w.notificationIndex === null ? null : notificationsBefore + w.notificationIndex,
        })),
      );
      combined.credits.push(...result.credits.map((c) => ({ ...c, eventIndex: i })));
      combined.offersIssued.push(...result.offersIssued.map((o) => ({ ...o, eventIndex: i })));
      combined.notifications.push(...result.notifications.map((n) => ({ ...n, eventIndex: i })));
      Object.assign(combined.progress, result.progress);
      snapshot = result.customer;
      state = { ...state, ...result.progress };
    });
    return { outcomes, result: { ...combined, customer: snapshot }, webhooks };
  }
}
