/**
 * Criteria operators and reward kinds as definitions (issue #29, decision 0018): what the engine knows of them, the
 * built-ins (operators.ts, rewards.ts) defined the same way an extension defines its own, in registries by name.
 */
import type { CustomerView, RulesView } from './types.js';

/** A definition of either kind: a name that rules use and who defined it. */
interface Definition {
  readonly name: string;
  readonly source: string;
}

/** A criteria operator: a pure, deterministic test of a subject's value against the criterion's `value`. */
export interface OperatorDefinition {
  readonly name: string;
  /** Who defined it: `core`, or the extension's name (the explanation names it). */
  readonly source: string;
  /** What it tests, in a sentence (the listing of operators answers it). */
  readonly description: string;
  /** `actual` is undefined when the field is absent; `expected` is the criterion's `value` as stored. */
  test(actual: unknown, expected: unknown): boolean;
}

/** The operators a compilation may use, by name. */
export type CriteriaOperators = ReadonlyMap<string, OperatorDefinition>;

/** What a reward may do to the evaluation it runs in: the only way a reward changes a result. */
export interface RewardContext {
  /** The organization's offers and tiers. */
  readonly rules: RulesView;
  /** The customer as the evaluation has them so far (points, tags and tier of earlier rewards included). */
  readonly customer: Readonly<CustomerView>;
  /** When the completion happened (epoch ms): the `occurred_at` of the event that completed the behavior. */
  readonly at: number;
  /** Credits points to the customer (a ledger credit for the outcome); nothing when the amount is not above 0. */
  credit(amount: number): void;
  /** Issues an offer and credits its points; false (nothing issued) when no offer has that id. */
  issueOffer(offerId: number): boolean;
  /** Moves the customer up to the tier of that name if it ranks higher (never down); false when no tier has it. */
  liftTier(tierName: string): boolean;
  /** Raises an event for the customer, evaluated after this completion (at most MAX_EVENT_DEPTH deep). */
  raise(name: string, count: number): void;
  /**
   * Asks for the reward's after-commit effect (a reward that declares `effects`): the payload (JSON) is stored with the
   * evaluation's writes, and the effect runs once they are committed, retried until it succeeds or is dead. A simulation
   * counts it and runs nothing.
   */
  effect(payload: Record<string, unknown>): void;
  /** A line of the behavior's explanation. */
  note(text: string): void;
}

/** A reward kind: a pure function of the evaluation and the outcome's arguments, deterministic like the engine. */
export interface Reward<A = unknown> {
  /** The member of an outcome_config entry that names it (`points`, `deal`, ...). */
  readonly name: string;
  /** Who defined it: `core`, or the extension's name. */
  readonly source: string;
  /** What it awards, in a sentence (the listing of reward kinds answers it). */
  readonly description: string;
  apply(ctx: RewardContext, args: A): void;
  /** The points one award credits, counted against a campaign budget before the award is made (default 0). */
  points?(args: A, rules: RulesView): number;
  /** The event names an award raises: the behaviors they reach are locked and loaded with the event's (default none). */
  raises?(args: A): string[];
  /** Creatives an award delivers as notifications, when live and targeted (default none). */
  creatives?(args: A): number[];
  /** Whether it has an after-commit effect: ctx.effect() is refused otherwise (default false). */
  readonly effects?: boolean;
}

/** The reward kinds a compilation may use, by name. */
export type Rewards = ReadonlyMap<string, Reward>;

/** What the rules are compiled with: the registered criteria operators and reward kinds, built-ins and extensions'. */
export interface EngineExtensions {
  operators: CriteriaOperators;
  rewards: Rewards;
}

/** Definitions by name; two with one name is an error that names both sources (`kind`: what they define). */
export function byName<T extends Definition>(kind: string, definitions: readonly T[]): ReadonlyMap<string, T> {
  const map = new Map<string, T>();
  for (const definition of definitions) {
    const taken = map.get(definition.name);
    if (taken) throw new Error(`${kind} "${definition.name}" is defined twice: by ${taken.source} and by ${definition.source}`);
    map.set(definition.name, definition);
  }
  return map;
}
