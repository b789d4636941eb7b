/**
 * Reward kinds as definitions: what a behavior's completion awards for each entry of its `outcome_config`, the
 * built-ins defined the same way an extension defines its own (issue #29, decision 0018). The engine knows rewards
 * only through a registry of them (Rewards), as it knows criteria operators (operators.ts).
 */
import type { CompiledRules } from './compile.js';
import { byName } from './definitions.js';
import type { CustomerSnapshot } from './types.js';

/** What a reward may do to the evaluation it runs in: the only way a reward changes a result. */
export interface RewardContext {
  readonly rules: CompiledRules;
  /** The customer as the evaluation has them so far (points, tags and tier of earlier rewards included). */
  readonly customer: Readonly<CustomerSnapshot>;
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
  points?(args: A, rules: CompiledRules): number;
  /** The event names an award raises: the behaviors they reach are locked and loaded with the event's (default none). */
  raises?(args: A): string[];
  /** Creatives an award delivers as notifications, when live and targeted (default none). */
  creatives?(args: A): number[];
  /** Whether it has an after-commit effect: ctx.effect() is refused otherwise (default false). */
  readonly effects?: boolean;
}

/** The reward kinds a compilation may use, by name. */
export type Rewards = ReadonlyMap<string, Reward>;

/** A registry of reward kinds; two with one name is an error that names them. */
export function rewards(kinds: readonly Reward[]): Rewards {
  return byName('reward kind', kinds);
}

/** A reward of typed arguments, kept in a registry of any. */
export function defineReward<A>(reward: Reward<A>): Reward {
  return reward as Reward;
}

const core = <A>(reward: Omit<Reward<A>, 'source'>): Reward => defineReward<A>({ ...reward, source: 'core' });

/** The built-in reward kinds, under the names outcome_config stores them by (contract §5). */
export const CORE_REWARDS: Rewards = rewards([
  core<{ id: number }>({
    name: 'deal',
    description: 'An offer of the organization, issued with its points',
    apply: (ctx, offer) => {
      if (!ctx.issueOffer(offer.id)) ctx.note(`offer ${offer.id} no longer exists; not issued`);
    },
    points: (offer, rules) => rules.offers.get(offer.id)?.points ?? 0,
  }),
  core<{ id: number }>({ name: 'ad_unit', description: 'A creative (message) of the same campaign, delivered as a notification', apply: () => undefined, creatives: (creative) => [creative.id] }),
  core<number>({ name: 'points', description: 'Points credited', apply: (ctx, points) => ctx.credit(points), points: (points) => points }),
  core<{ name: string; by?: number }>({ name: 'event', description: 'An event raised for the customer', apply: (ctx, event) => ctx.raise(event.name, event.by ?? 1), raises: (event) => [event.name] }),
  core<{ name: string }>({
    name: 'tier',
    description: 'A tier of the organization the customer is lifted to',
    apply: (ctx, tier) => {
      if (!ctx.liftTier(tier.name)) ctx.note(`tier "${tier.name}" no longer exists; not awarded`);
    },
  }),
]);
