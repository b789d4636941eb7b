/**
 * Reward kinds as definitions: what a behavior's completion awards for each entry of its `outcome_config`, the
 * built-ins defined the same way an extension defines its own (issue #29, decision 0018). The engine knows rewards
 * only through a registry of them (Rewards, definitions.ts), as it knows criteria operators (operators.ts).
 */
import { byName, type Reward, type Rewards } from './definitions.js';

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
