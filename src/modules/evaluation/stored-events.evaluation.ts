import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import { addBudgetUse, tierDirection, type BudgetLeft, type CompiledRules, type CustomerSnapshot, type ExtensionFailureRecord, type ProgressMap } from '../../engine/index.js';
import { RulesCacheService } from '../campaigns/index.js';
import { webhookOccurrences, WebhookSubscriptions, type WebhookEventType, type WebhookOccurrence } from '../webhooks/index.js';
import { AfterCommit, type MetFailures } from './after-commit.js';
import { retryOnBudget } from './budgets.js';
import { CustomerTransactions } from './customer-transactions.js';
import { EvaluationRepository, type LoadedCustomer, type PendingEvent } from './evaluation.repository.js';
import type { EventKey } from './event-keys.js';
import { eventOutcome } from './event-outcome.js';
import { evaluateNext, type ReplayedCustomer } from './history-replay.js';
import { involvedBehaviors } from './involved-behaviors.js';
import { planWrite, type CustomerResult, type EventOutcome, type MarkedEventRow, type Outcomes } from './write-plan.js';

export interface ProcessedSummary {
  processed: number;
  rejected: number;
  skipped: number;
  /** For each event processed: seconds from stored to its evaluation committed. */
  lagSeconds: number[];
  /** Webhook deliveries written, queued once committed. */
  deliveries: number;
}

/** What one transaction of a job wrote, and the events it left to the next. */
interface Pass {
  storedAt: Date[];
  rejected: number;
  deliveryIds: string[];
  effectIds: string[];
  left: EventKey[];
  /** The extensions' failures its evaluations met, per event. */
  met: MetFailures[];
}

const NOTHING: Pass = { storedAt: [], rejected: 0, deliveryIds: [], effectIds: [], left: [], met: [] };

/** One customer's pending events of a job. */
interface CustomerEvents {
  customer: LoadedCustomer;
  organizationId: number;
  events: PendingEvent[];
}

/**
 * The events worker's way into the pipeline: stored events (V2, and V1 async=true) of many customers, named by key
 * (id and occurred_at: event-keys.ts), evaluated in a transaction of three round trips whatever their number: the
 * customers locked in id order with their pending events, their progress in the behaviors involved, then every result
 * written with COMMIT. The first transaction skips customers another transaction holds (another job's evaluation, a
 * V1 request), so that a job never holds a hundred customers while it waits for one; a second takes those, waiting
 * for them. Idempotent: only events still `pending` once the locks are held are evaluated, so a job
 * delivered twice, or a sweep re-queueing events a worker is already on, changes nothing the second time. Events whose
 * customer does not exist are rejected (customer_not_found) in the same write, and never retried.
 */
@Injectable()
export class StoredEventsEvaluation {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly transactions: CustomerTransactions,
    private readonly repository: EvaluationRepository,
    private readonly rules: RulesCacheService,
    private readonly subscriptions: WebhookSubscriptions,
    private readonly afterCommit: AfterCommit,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(keys: EventKey[], log: Record<string, unknown> = {}): Promise<ProcessedSummary> {
    // First the customers no other transaction holds; then, once those are committed, the others, waiting for them.
    const first = await this.evaluatePass(keys, true);
    const second = first.left.length ? await this.evaluatePass(first.left, false) : NOTHING;
    const storedAt = [...first.storedAt, ...second.storedAt];
    const deliveryIds = [...first.deliveryIds, ...second.deliveryIds];
    const effectIds = [...first.effectIds, ...second.effectIds];
    const rejected = first.rejected + second.rejected;
    await this.afterCommit.run({ deliveryIds, effectIds }, { processed: storedAt.length, rejected }, log, [...first.met, ...second.met]);
    const now = this.clock.now();
    return {
      processed: storedAt.length,
      rejected,
      skipped: keys.length - storedAt.length - rejected,
      lagSeconds: storedAt.map((at) => (now - at.getTime()) / 1000),
      deliveries: deliveryIds.length,
    };
  }

  /**
   * One transaction over the events: their customers locked (`skipLocked`: only those no other transaction holds,
   * else waiting for each), their pending events evaluated and written. Answers what it wrote, and the keys of the
   * pending events whose customer it did not lock (`left`), for the next pass.
   */
  private evaluatePass(keys: EventKey[], skipLocked: boolean): Promise<Pass> {
    return retryOnBudget((locked) => this.transactions.run(null, async (tx) => {
      const [customers, pending] = await Promise.all([this.repository.lockCustomersOfEvents(tx.uow, keys, skipLocked), this.repository.jobEvents(tx.uow, keys)]);
      // An event whose customer does not exist is rejected (customer_not_found) in the same write, never retried.
      const withoutCustomer: MarkedEventRow[] = pending
        .filter((e) => e.customerId === null)
        .map((e) => ({ id: e.key.id, occurred_at: e.key.occurredAt, status: 'rejected', reason: 'customer_not_found', result: null, points: 0 }));
      const { groups, left } = byCustomer(customers, pending);
      if (groups.length === 0 && withoutCustomer.length === 0) return { ...NOTHING, left };
      const rules = new Map<number, { rules: CompiledRules; subscribed: ReadonlySet<WebhookEventType> }>();
      for (const { organizationId: org, customer } of groups) {
        if (rules.has(org)) continue;
        rules.set(org, {
          rules: await this.rules.get(org, customer.rulesVersion, tx.uow),
          subscribed: await this.subscriptions.typesFor(org, customer.rulesVersion, tx.uow),
        });
      }
      const behaviorIds = new Set(groups.flatMap((g) => g.events.flatMap((e) => involvedBehaviors(rules.get(g.organizationId)!.rules, [e.instance], e.campaignId))));
      // Under a period tier policy, each organization's customers' qualifying facts, in its zone.
      const underPeriod = new Map<number, CustomerSnapshot[]>();
      for (const g of groups) {
        if (rules.get(g.organizationId)!.rules.tierRules.policy.basis === 'period') underPeriod.set(g.organizationId, [...(underPeriod.get(g.organizationId) ?? []), g.customer.snapshot]);
      }
      // The experiment assignments of the customers whose organization runs experiments (§20).
      const measured = groups.filter((g) => rules.get(g.organizationId)!.rules.experiments.length).map((g) => g.customer.snapshot);
      const [progress] = await Promise.all([
        this.repository.progress(tx.uow, groups.map((g) => g.customer.snapshot.id), [...behaviorIds]),
        measured.length
          ? this.repository.experiments(tx.uow, measured.map((c) => c.id)).then((found) => measured.forEach((c) => (c.experiments = found.get(c.id) ?? {})))
          : null,
        ...[...underPeriod].map(async ([org, customers]) => {
          const facts = await this.repository.tierFacts(tx.uow, customers.map((c) => c.id), rules.get(org)!.rules.tierRules.timeZone);
          for (const customer of customers) customer.tierFacts = facts.get(customer.id);
        }),
      ]);
      const now = this.clock.now();
      // Every customer of the batch spends from the same budgets, one after the other (campaign ids are unique across organizations).
      const budgets = await this.repository.budgets(tx.uow, locked, true);
      const marked: MarkedEventRow[] = [...withoutCustomer];
      const results: CustomerResult[] = [];
      const met: MetFailures[] = [];
      for (const group of groups) {
        const { rules: compiled, subscribed } = rules.get(group.organizationId)!;
        const evaluated = evaluateEvents(group, compiled, progress.get(group.customer.snapshot.id) ?? {}, subscribed, now, budgets);
        results.push({ organizationId: group.organizationId, before: group.customer.snapshot, result: evaluated.result, firstIndex: marked.length, webhooks: evaluated.webhooks });
        group.events.forEach((e, i) => marked.push({ id: e.key.id, occurred_at: e.key.occurredAt, ...rowOutcome(evaluated.outcomes[i]) }));
        evaluated.failures.forEach((failures, i) => failures.length && met.push({ organizationId: group.organizationId, failures, log: { event_id: group.events[i].key.id } }));
      }
      const written = await tx.commitWith(this.repository.write(tx.uow, planWrite({ mark: marked }, results)));
      return { storedAt: groups.flatMap((g) => g.events.map((e) => e.storedAt)), rejected: withoutCustomer.length, deliveryIds: written.deliveryIds, effectIds: written.effectIds, left, met };
    }));
  }

  /** Events whose job ran out of attempts: `failed` with the error, until `npm run cli -- events:replay --failed`. */
  markFailed(keys: EventKey[], reason: string): Promise<void> {
    return this.repository.markFailed(this.db, keys, reason);
  }

  /** The events still pending, one list per customer (in occurred_at order). */
  pendingByCustomer(keys: EventKey[]): Promise<EventKey[][]> {
    return this.repository.pendingByCustomer(this.db, keys);
  }

  /** The keys of events named by id alone (jobs queued before jobs named their events' times). */
  keysOf(eventIds: string[]): Promise<EventKey[]> {
    return this.repository.keysOf(this.db, eventIds);
  }
}

function rowOutcome(o: EventOutcome): Omit<MarkedEventRow, 'id' | 'occurred_at'> {
  return { status: o.status, reason: o.reason, result: o.result, points: o.pointsEarned };
}

/**
 * Pending events grouped by customer, for the customers this transaction locked (in the events' order); `left`: the
 * events of customers it did not lock (held by another transaction, or pending now but not when the locks were taken).
 */
function byCustomer(locked: LoadedCustomer[], pending: PendingEvent[]): { groups: CustomerEvents[]; left: EventKey[] } {
  const customers = new Map(locked.map((c) => [c.snapshot.id, c]));
  const groups = new Map<string, CustomerEvents>();
  const left: EventKey[] = [];
  for (const event of pending) {
    if (event.customerId === null) continue;
    const customer = customers.get(event.customerId);
    if (!customer) {
      left.push(event.key);
      continue;
    }
    let group = groups.get(customer.snapshot.id);
    if (!group) groups.set(customer.snapshot.id, (group = { customer, organizationId: event.organizationId, events: [] }));
    group.events.push(event);
  }
  return { groups: [...groups.values()], left };
}

/**
 * One customer's events, one evaluation per event (a V1 async event may name a campaign), state carried from one
 * to the next; answers each event's outcome and the combined result (event indexes relative to the customer's list).
 */
function evaluateEvents(
  group: CustomerEvents,
  rules: CompiledRules,
  progress: ProgressMap,
  subscribed: ReadonlySet<WebhookEventType>,
  now: number,
  budgets: Record<number, BudgetLeft>,
) {
  const customer: ReplayedCustomer = { snapshot: group.customer.snapshot, progress: { ...progress } };
  const outcomes: EventOutcome[] = [];
  /** Per event, the extensions' failures its evaluation met. */
  const failures: ExtensionFailureRecord[][] = [];
  const webhooks: WebhookOccurrence[] = [];
  const combined: Omit<Outcomes, 'customer'> = {
    progress: {},
    credits: [],
    offersIssued: [],
    notifications: [],
    budgetUse: {},
    budgetRefused: [],
    effects: [],
    tierOutcomes: [],
    tierChange: null,
    evaluated: [],
    completions: [],
    goalsAdvanced: [],
    experiments: [],
  };
  group.events.forEach((event, i) => {
    // A V1 async event scoped to a campaign that is no longer live evaluates nothing (as V1 sync answers 404).
    if (event.campaignId !== null && !rules.campaigns.has(event.campaignId)) {
      outcomes.push({ status: 'processed', reason: 'No_active_campaign_found', result: null, pointsEarned: 0 });
      failures.push([]);
      return;
    }
    const before = customer.snapshot;
    // A stored event's result never keeps an explanation.
    const result = evaluateNext(rules, customer, event, { now, multiOrgEnabled: event.multiOrgEnabled, budgets, explain: false });
    addBudgetUse(combined.budgetUse, result.budgetUse);
    combined.budgetRefused.push(...result.budgetRefused.filter((id) => !combined.budgetRefused.includes(id)));
    outcomes.push(eventOutcome(result, 0, false));
    failures.push(result.extensionFailures);
    // Each event's webhook events, built from its own evaluation: its notifications follow those of earlier events.
    const notificationsBefore = combined.notifications.length;
    webhooks.push(
      ...webhookOccurrences(rules, before, result, group.customer.externalId, subscribed, now).map((w) => ({
        ...w,
        eventIndex: i,
        notificationIndex: w.notificationIndex === null ? null : notificationsBefore + w.notificationIndex,
      })),
    );
    combined.credits.push(...result.credits.map((c) => ({ ...c, eventIndex: i })));
    combined.offersIssued.push(...result.offersIssued.map((o) => ({ ...o, eventIndex: i })));
    combined.notifications.push(...result.notifications.map((n) => ({ ...n, eventIndex: i })));
    combined.effects.push(...result.effects.map((e) => ({ ...e, eventIndex: i })));
    combined.tierOutcomes.push(...result.tierOutcomes.map((t) => ({ ...t, eventIndex: i })));
    combined.evaluated.push(...result.evaluated.map((e) => ({ ...e, eventIndex: i })));
    combined.completions.push(...result.completions.map((c) => ({ ...c, eventIndex: i })));
    combined.goalsAdvanced.push(...result.goalsAdvanced);
    combined.experiments.push(...result.experiments);
    if (result.tierChange) {
      const from = combined.tierChange?.fromTierId ?? result.tierChange.fromTierId;
      const steps = [...(combined.tierChange?.steps ?? []), ...result.tierChange.steps];
      combined.tierChange = { ...result.tierChange, fromTierId: from, direction: tierDirection(rules, from, result.tierChange.toTierId), steps };
    }
    Object.assign(combined.progress, result.progress);
  });
  // The tier's history gets the batch's moves, each event's in turn (none when the batch ends on the tier it began on).
  if (combined.tierChange?.fromTierId === customer.snapshot.tierId) combined.tierChange = null;
  return { outcomes, failures, result: { ...combined, customer: customer.snapshot }, webhooks };
}
