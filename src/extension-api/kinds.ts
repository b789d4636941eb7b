import type { CompiledRules, FlatValue, RewardContext } from '../engine/index.js';

/**
 * A reward kind's work (decorate the class with @RewardKind). `apply` must be pure and deterministic: it runs inside
 * the engine, for live events, simulations and explanations alike, and changes the result only through `ctx`.
 */
export abstract class RewardKindHandler<A = unknown> {
  abstract apply(ctx: RewardContext, args: A): void;
  /** The points one award credits, counted against a campaign budget before the award is made (default 0). */
  points?(args: A, rules: CompiledRules): number;
  /** The event names an award raises (default none): the behaviors listening to them are locked and loaded too. */
  raises?(args: A): string[];
  /** The creatives an award delivers as notifications when they are live and target the customer (default none). */
  creatives?(args: A): number[];
}

/**
 * A criteria operator's test (decorate the class with @CriteriaOperator): pure and deterministic, so that a replay
 * gives the same answer. `actual` is undefined when the field is absent; `expected` is the criterion's `value`.
 */
export abstract class CriteriaOperatorHandler {
  abstract test(actual: unknown, expected: unknown): boolean;
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
