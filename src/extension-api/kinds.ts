import type { CampaignState, CustomerView, FlatValue, PerformFailureReason, RewardContext, RulesView } from '../engine/index.js';

/**
 * A reward kind's work (decorate the class with @RewardKind). `apply` must be pure and deterministic: it runs inside
 * the engine, for live events, simulations and explanations alike, and changes the result only through `ctx`.
 *
 * `upgrade` (optional) migrates arguments stored under an earlier version of the `args` class: `npm run cli --
 * extensions:upgrade` calls it with each stored outcome's arguments that the current class refuses (the stored JSON, a
 * copy), checks what it answers with that class, and stores it in their place (an audit entry per object, the rules
 * version bumped); arguments it cannot upgrade, it answers unchanged (or throws), and they stay as stored, reported by
 * the boot log and the extensions listing. It must be pure: the same stored value gives the same upgrade.
 */
export abstract class RewardKindHandler<A = unknown> {
  abstract apply(ctx: RewardContext, args: A): void;
  /** The points one award credits, counted against a campaign budget before the award is made (default 0). */
  points?(args: A, rules: RulesView): number;
  /** The event names an award raises (default none): the behaviors listening to them are locked and loaded too. */
  raises?(args: A): string[];
  /** The creatives an award delivers as notifications when they are live and target the customer (default none). */
  creatives?(args: A): number[];
  /**
   * The after-commit effect (optional): for each `ctx.effect(payload)` of `apply`, once the evaluation is committed, a
   * worker calls it with that payload, at least once: retried with backoff (10 attempts over about 8.5 minutes) until
   * it returns, then `dead`. Its statements through `ctx.query` commit with the effect marked done, or not at all; for
   * anything outside the database, `ctx.effectId` is the idempotency key. It holds a connection and a transaction
   * while it runs (at most 30 s; 4 effects at once per worker process): keep remote calls short.
   */
  afterCommit?(ctx: RewardEffectContext): Promise<void>;
  /** Stored arguments the current `args` class refuses, in the form it takes (see above); never called with valid ones. */
  upgrade?(stored: unknown): unknown;
}

/** What a reward's after-commit effect runs with. */
export interface RewardEffectContext {
  /** The effect's id: the same on every attempt (an idempotency key for the team's own systems). */
  readonly effectId: string;
  /** The attempt, from 1. */
  readonly attempt: number;
  /** What `apply` passed to ctx.effect(). */
  readonly payload: Readonly<Record<string, unknown>>;
  readonly organizationId: number;
  /** The customer whose completion awarded it. */
  readonly customerId: string;
  readonly campaignId: number;
  readonly behaviorId: number;
  /** The event whose evaluation awarded it. */
  readonly eventId: string;
  /**
   * Aborted when the attempt's deadline passes (30 s; its reason a `TimeoutError`): hand it to your own I/O (`fetch(url,
   * { signal })`, a client's cancel) so that the work stops with the attempt. The attempt has failed by then: its
   * transaction is rolled back (a statement of `ctx.query` still running is cancelled), `ctx.query`, `notify` and
   * `submitEvent` refuse from then on, and the effect is retried.
   */
  readonly signal: AbortSignal;
  /**
   * A statement in the effect's transaction, which commits with the effect marked done (rolled back if it throws). A
   * statement that fails aborts the transaction: the attempt fails with that error even if the effect catches it.
   */
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  /**
   * Stores a notification of a creative of the organization for the customer, in the effect's transaction, its payload
   * merged into the creative's, with the `notification.created` webhook deliveries the evaluation's notifications have
   * (docs/webhooks.md): they commit with the effect marked done, and are sent once it has.
   */
  notify(creativeId: number, payload?: Record<string, unknown>): Promise<void>;
  /**
   * Submits an event for a customer of the organization (the one that completed, or another), stored with the effect's
   * transaction and evaluated by the events worker like any event: outcomes, caps, budgets, tiers and webhooks apply.
   * It commits with the effect marked done: a failed attempt's events are rolled back with it.
   */
  submitEvent(customerId: string, event: { name: string; attributes?: Record<string, FlatValue> }): Promise<void>;
}

/**
 * A criteria operator's test (decorate the class with @CriteriaOperator): pure and deterministic, so that a replay
 * gives the same answer. `actual` is the field's value as the subject holds it: undefined when the field is absent, a
 * list for `user.tags`, any JSON value of an event's attributes. `expected` is the criterion's `value` as stored (JSON,
 * frozen): `V`, the type of the `value` class's `value` member, once written; a stale value (stored before the class
 * changed, see `upgrade`) may be of an earlier form.
 *
 * `upgrade` (optional) migrates a criterion's `value` stored under an earlier version of the `value` class (goal
 * criteria, campaign and creative group targeting): `npm run cli -- extensions:upgrade` calls it with each stored value
 * the current class refuses (the stored JSON, a copy), checks what it answers as a write checks a criterion, and stores
 * it in its place (an audit entry per object, the rules version bumped); a value it cannot upgrade, it answers unchanged
 * (or throws), and it stays as stored, reported by the boot log and the extensions listing. It must be pure.
 */
export abstract class CriteriaOperatorHandler<V = unknown> {
  /** Whether the field's value `actual` meets the criterion's value `expected`. */
  abstract test(actual: unknown, expected: V): boolean;
  /** A stored value the current `value` class refuses, in the form it takes (see above); never called with valid ones. */
  upgrade?(stored: unknown): unknown;
}

/** An event as an enricher sees it: its name, and the attributes and context it may add to or normalize. */
export interface EnrichableEvent {
  readonly name: string;
  /** V1 and perform events; V2 events carry none, and an enricher may not add any to them. */
  attributes: Record<string, unknown>;
  context: Record<string, FlatValue>;
}

/** Where the events come from. */
export interface EnrichContext {
  readonly organizationId: number;
  readonly source: 'v1' | 'v2' | 'perform';
  /**
   * Aborted when this enricher's EXTENSION_TIMEOUT_MS passes (its reason a `TimeoutError`): the request has been answered
   * 503 by then and what the enricher does to the events is dropped. Hand it to your I/O (`fetch(url, { signal })`, a
   * client's cancel) so that the work stops too.
   */
  readonly signal: AbortSignal;
}

/**
 * An event enricher's work (decorate the class with @EventEnricher): it may set members of each event's `attributes`
 * and `context` (flat values: strings, numbers, booleans), once per request, before the events are stored. What it
 * sets is stored with the event, so the workers and every replay see the same event. It may read its own data (a store
 * table, say); it runs under EXTENSION_TIMEOUT_MS.
 */
export abstract class EventEnricherHandler {
  abstract enrich(events: EnrichableEvent[], context: EnrichContext): void | Promise<void>;
}

/** An event a domain action has the engine evaluate for the customer, at the perform's time. */
export interface DomainEvent {
  name: string;
  attributes?: Record<string, FlatValue>;
  context?: Record<string, FlatValue>;
}

/**
 * What a domain action decides with: perform's arguments, the customer as locked (in the perform's transaction), the
 * campaign, the engine, and reads on the transaction's connection.
 */
export interface DomainActionContext<A = unknown> {
  readonly args: A;
  readonly organizationId: number;
  readonly campaignId: number;
  readonly customer: CustomerView;
  /** The customer's external id, when it has one. */
  readonly externalId: string | null;
  /** The perform's time (epoch ms), from the service's clock. */
  readonly now: number;
  /** complete_campaign's work: every behavior of the campaign completed once for the customer. */
  completeCampaign(): CampaignCompletion;
  /** The engine's evaluation of events for the customer at `now` (outcomes, raised events, budgets), as V1 would. */
  evaluate(events: DomainEvent[]): DomainResult;
  /** A read on the perform's transaction (the customer is locked): the action's own tables, say. */
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  /**
   * Aborted when EXTENSION_TIMEOUT_MS passes (its reason a `TimeoutError`): the perform has been answered 503 and its
   * transaction rolled back by then. Hand it to your I/O so that the work stops too.
   */
  readonly signal: AbortSignal;
}

/**
 * The engine's result for a domain action (`ctx.evaluate`, `ctx.completeCampaign`): every change to write, which the
 * action hands back as its decision's `result` for perform to write. Only the engine makes one: perform refuses any
 * other (500 internal_error).
 */
export interface DomainResult {
  /** `qualified` when a campaign qualified the customer, else the first reason none did (contract §8). */
  readonly state: CampaignState;
}

/** complete_campaign's work (`ctx.completeCampaign`): the result, or why the campaign could not be completed. */
export interface CampaignCompletion extends DomainResult {
  /** Null when the campaign was completed; else why not (return it as a `failure`: nothing is to be written). */
  readonly failure: { readonly reason: PerformFailureReason; readonly detail: string } | null;
}

/** Rows a domain action adds to one of its own tables (declared in @DomainAction's `tables`), column → value. */
export interface DomainRows {
  table: string;
  rows: Array<Record<string, unknown>>;
}

/** What a domain action decided: the engine's result to write, or why it cannot be done. */
export type DomainActionDecision =
  | {
      result: DomainResult;
      /** Added to the stored event's attributes (the perform's `domain` is there already). */
      attributes?: Record<string, FlatValue>;
      /** Written in the perform's transaction, with the event and the result. */
      rows?: DomainRows[];
    }
  | {
      /** Why not: answered 422 failed_to_perform with this detail, and nothing is written. */
      failure: string;
    };

/**
 * A domain action's work (decorate the class with @DomainAction): perform calls `decide` inside its transaction with
 * the customer locked, and writes what it decides in that transaction (the event, the result, the rows); a throw rolls
 * all of it back. `involved` names the behaviors whose progress `decide` reads or changes (default: those of the
 * campaign and those their outcomes' events reach): they are locked and loaded before it runs.
 */
export abstract class DomainActionHandler<A = unknown> {
  abstract decide(ctx: DomainActionContext<A>): DomainActionDecision | Promise<DomainActionDecision>;
  /** The ids of the behaviors `decide` reads or changes (behaviorsInvolved and performBehaviorsInvolved say which). */
  involved?(rules: RulesView, campaignId: number, args: A): number[];
}
