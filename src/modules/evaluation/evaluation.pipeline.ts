import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import { AppError } from '../../common/errors/app-error.js';
import type { BudgetLeft, CompiledRules, EventInstance, ExtensionFailureRecord, ProgressMap } from '../../engine/index.js';
import type { EventCounter } from '../metrics/index.js';
import { RulesCacheService } from '../campaigns/index.js';
import type { WebhookEventType } from '../webhooks/index.js';
import { WebhookSubscriptions } from '../webhooks/index.js';
import { AfterCommit } from './after-commit.js';
import { budgetedCampaigns, retryOnBudget } from './budgets.js';
import { customerPlan, pendingRows, type EventsToStore } from './customer-plan.js';
import { CustomerTransactions, type CustomerTransaction } from './customer-transactions.js';
import { EvaluationRepository, type CustomerKey, type LoadedCustomer, type Written } from './evaluation.repository.js';
import type { EventKey } from './event-keys.js';
import { involvedBehaviors } from './involved-behaviors.js';
import type { EventToStore, WritePlan } from './write-plan.js';

/** What the pipeline loaded for one customer: the engine's whole input but the events. */
export interface Loaded {
  rules: CompiledRules;
  customer: LoadedCustomer;
  /** Progress in the behaviors the evaluation involves (rows that do not exist are absent). */
  progress: ProgressMap;
  /** The webhook event types the organization subscribes to (none when the evaluation writes nothing). */
  subscribed: ReadonlySet<WebhookEventType>;
  now: number;
  /** What is left of the budgets known so far, for the engine (retryOnBudget). */
  budgets: Record<number, BudgetLeft>;
  /** The transaction's unit of work, for a way in's own reads (read_only's transaction_id check). */
  uow: UnitOfWork;
}

interface Decided<T> {
  /** Counted in the event metrics once committed. */
  counts?: Partial<Record<EventCounter, number>>;
  /** The extensions' failures the engine met (EvaluationResult.extensionFailures): recorded once settled. */
  extensionFailures?: ExtensionFailureRecord[];
  answer(written: Written | null): T;
}

/**
 * What a way in decided, from the engine's result, and its answer. What it writes: `store`, its events and the
 * engine's result for them, which the pipeline plans (event rows, what the result changed, webhook events); or `plan`,
 * a write plan made already. Null: nothing.
 */
export type Decision<T> = Decided<T> & ({ store: EventsToStore | null } | { plan: WritePlan | null });

/** The behaviors whose progress an evaluation reads: those its events listen to (and their campaign's), or its own list. */
export type Involved = { events: EventInstance[]; campaignId(rules: CompiledRules): number | null } | ((rules: CompiledRules) => number[]);

/** One customer's evaluation as a way in (V1 and read_only, the qualify check, retrieval, perform) asks for it. */
export interface CustomerEvaluation<T> {
  organizationId: number;
  customer: CustomerKey;
  /** false: the customer is read without a lock or a transaction, and nothing is written (read_only, the qualify check, retrieval). */
  write: boolean;
  involved: Involved;
  /** Runs the engine on what was loaded, as the way in does (a domain action decides here). Throwing rolls everything back. */
  decide(loaded: Loaded): Decision<T> | Promise<Decision<T>>;
  /** For log lines of what happens after commit. */
  requestId?: string;
}

const NONE: ReadonlySet<WebhookEventType> = new Set();

/** Work for one customer waits for its turn in this process by the key the request names it by. */
const laneOf = (org: number, key: CustomerKey) => `${org}:${'userId' in key ? `id:${key.userId}` : `external:${key.externalId}`}`;

const involvedIn = (involved: Involved, rules: CompiledRules): number[] =>
  typeof involved === 'function' ? involved(rules) : involvedBehaviors(rules, involved.events, involved.campaignId(rules));

/**
 * The event path: load (customer locked, progress of the involved behaviors, compiled rules) → engine (the way in's
 * `decide`) → write plan → persist (one transaction, CustomerTransactions) → after commit (deliveries, metrics).
 * Every evaluation of one customer goes through forCustomer: V1 sync and read_only, the qualify check, retrieval,
 * perform; V1 async=true stores its events through storePending. The events worker's batches of many customers go
 * through StoredEventsEvaluation. Rules and webhook subscriptions are loaded on the transaction's own connection.
 */
@Injectable()
export class EvaluationPipeline {
  constructor(
    private readonly transactions: CustomerTransactions,
    private readonly repository: EvaluationRepository,
    private readonly rules: RulesCacheService,
    private readonly subscriptions: WebhookSubscriptions,
    private readonly afterCommit: AfterCommit,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async forCustomer<T>(evaluation: CustomerEvaluation<T>): Promise<T> {
    const { organizationId: org, customer: key, write } = evaluation;
    // The progress the last compiled rules say the events involve is read with the customer, in its round trip;
    // only what the current rules add is read after.
    const hint = await this.rules.peek(org)?.catch(() => null);
    const guess = hint ? involvedIn(evaluation.involved, hint) : [];
    const lane = laneOf(org, key);
    const work = async (tx: CustomerTransaction, locked: number[]) => {
      // Under a period tier policy the customer's qualifying facts are read in the same round trip too (§17).
      // So are the customer's experiment assignments, when the organization runs experiments (§20).
      const [customer, guessed, facts, assignments] = await Promise.all([
        this.repository.customer(tx.uow, org, key, write),
        this.repository.progressByKey(tx.uow, org, key, guess),
        hint?.tierRules.policy.basis === 'period' ? this.repository.tierFactsByKey(tx.uow, org, key, hint.tierRules.timeZone) : null,
        hint?.experiments.length ? this.repository.experimentsByKey(tx.uow, org, key) : null,
      ]);
      if (!customer) throw AppError.notFound('user');
      const rules = await this.rules.get(org, customer.rulesVersion, tx.uow);
      if (rules.experiments.length) {
        customer.snapshot.experiments = assignments ?? (await this.repository.experiments(tx.uow, [customer.snapshot.id])).get(customer.snapshot.id) ?? {};
      }
      if (rules.tierRules.policy.basis === 'period') {
        // Read with the hint's zone: the rules may have changed it since (a new organization's zone never changes).
        const fresh = facts && hint?.tierRules.timeZone === rules.tierRules.timeZone;
        customer.snapshot.tierFacts = fresh ? facts : (await this.repository.tierFacts(tx.uow, [customer.snapshot.id], rules.tierRules.timeZone)).get(customer.snapshot.id);
      }
      // The hint is the current rules on a warm cache: what they involve was read already.
      const missing = rules === hint ? [] : involvedIn(evaluation.involved, rules).filter((id) => !guess.includes(id));
      const progress = missing.length ? { ...guessed, ...(await this.repository.progress(tx.uow, [customer.snapshot.id], missing)).get(customer.snapshot.id) } : guessed;
      // Budgets: a write locks and reads only those a failed attempt met (retryOnBudget); a read sees them as they are.
      const [subscribed, budgets] = await Promise.all([
        write ? this.subscriptions.typesFor(org, customer.rulesVersion, tx.uow) : NONE,
        this.repository.budgets(tx.uow, write ? locked : budgetedCampaigns(rules), write),
      ]);
      const loaded: Loaded = { rules, customer, progress, subscribed, budgets, now: this.clock.now(), uow: tx.uow };
      const decision = await evaluation.decide(loaded);
      const plan = 'store' in decision ? decision.store && customerPlan(org, loaded, decision.store) : decision.plan;
      const written = plan ? await tx.commitWith(this.repository.write(tx.uow, plan)) : null;
      return { decision, written };
    };
    const { decision, written } = write
      ? await retryOnBudget((locked) => this.transactions.run(lane, (tx) => work(tx, locked)))
      : await this.transactions.read((tx) => work(tx, []));
    const met = decision.extensionFailures?.length ? [{ organizationId: org, failures: decision.extensionFailures }] : [];
    void this.afterCommit.run(written ?? { deliveryIds: [] }, decision.counts ?? {}, { req_id: evaluation.requestId }, met);
    return decision.answer(written);
  }

  /**
   * Work on one customer without the engine (a debit, a reversal): the same turn, row lock and transaction as an
   * evaluation of that customer, so the two serialize; the deliveries it wrote are queued once committed.
   */
  async withCustomerLocked<T>(
    organizationId: number,
    key: CustomerKey,
    work: (customer: LoadedCustomer, tx: CustomerTransaction) => Promise<{ answer: T; deliveryIds: string[] }>,
    requestId?: string,
  ): Promise<T> {
    const { answer, deliveryIds } = await this.transactions.run(laneOf(organizationId, key), async (tx) => {
      const customer = await this.repository.customer(tx.uow, organizationId, key, true);
      if (!customer) throw AppError.notFound('user');
      return work(customer, tx);
    });
    void this.afterCommit.run({ deliveryIds }, {}, { req_id: requestId });
    return answer;
  }

  /**
   * V1 async=true: the events stored pending for the events worker, in one transaction with the read of their customer
   * (not locked) and its rules, which `events` describes them by; answers their keys, in order.
   */
  storePending(organizationId: number, key: CustomerKey, events: (rules: CompiledRules) => EventToStore[]): Promise<EventKey[]> {
    return this.transactions.run(null, async ({ uow }) => {
      const customer = await this.repository.customer(uow, organizationId, key, false);
      if (!customer) throw AppError.notFound('user');
      const rules = await this.rules.get(organizationId, customer.rulesVersion, uow);
      return this.repository.storePending(uow, pendingRows(organizationId, customer, events(rules)));
    });
  }

  /** The rules of an organization at a version, read on `uow`'s connection. */
  rulesAt(organizationId: number, version: number, uow: UnitOfWork): Promise<CompiledRules> {
    return this.rules.get(organizationId, version, uow);
  }
}
