import { Module, type Type } from '@nestjs/common';
import { CORE_REWARDS, type Reward } from '../../../engine/index.js';
import { RewardKind, RewardKindHandler, type RewardContext, type RewardKindOptions, type RulesView } from '../../../extension-api/index.js';
import { BuiltIn } from '../../registry/index.js';
import { EventOutcomeInput, OutcomeIdRef, OutcomeTierRef, PointsValue } from './core-reward-args.js';

/**
 * The built-in reward kinds (contract §5), defined as a team's would be: @RewardKind providers with their args classes,
 * of a built-in module (source `core`). Their work is the engine's own pure functions (CORE_REWARDS, engine/rewards.ts),
 * which each handler delegates to; the engine compiles rules with those, in every process, Nest or not.
 */

function engineReward(name: string): Reward {
  const reward = CORE_REWARDS.get(name);
  if (!reward) throw new Error(`the engine has no built-in reward kind "${name}"`);
  return reward;
}

/** A built-in's @RewardKind: the engine's name and description, and its args class. */
const BuiltInReward = (name: string, args: Type): ClassDecorator => RewardKind({ name, description: engineReward(name).description, args });

@BuiltInReward('deal', OutcomeIdRef)
export class DealReward extends RewardKindHandler<OutcomeIdRef> {
  private readonly reward = engineReward('deal');
  apply(ctx: RewardContext, offer: OutcomeIdRef): void {
    this.reward.apply(ctx, offer);
  }
  override points(offer: OutcomeIdRef, rules: RulesView): number {
    return this.reward.points!(offer, rules);
  }
}

@BuiltInReward('ad_unit', OutcomeIdRef)
export class AdUnitReward extends RewardKindHandler<OutcomeIdRef> {
  private readonly reward = engineReward('ad_unit');
  apply(ctx: RewardContext, creative: OutcomeIdRef): void {
    this.reward.apply(ctx, creative);
  }
  override creatives(creative: OutcomeIdRef): number[] {
    return this.reward.creatives!(creative);
  }
}

/** Its arguments are the number of points itself: PointsValue's `value`. */
@BuiltInReward('points', PointsValue)
export class PointsReward extends RewardKindHandler<number> {
  private readonly reward = engineReward('points');
  apply(ctx: RewardContext, points: number): void {
    this.reward.apply(ctx, points);
  }
  override points(points: number, rules: RulesView): number {
    return this.reward.points!(points, rules);
  }
}

@BuiltInReward('event', EventOutcomeInput)
export class EventReward extends RewardKindHandler<EventOutcomeInput> {
  private readonly reward = engineReward('event');
  apply(ctx: RewardContext, event: EventOutcomeInput): void {
    this.reward.apply(ctx, event);
  }
  override raises(event: EventOutcomeInput): string[] {
    return this.reward.raises!(event);
  }
}

@BuiltInReward('tier', OutcomeTierRef)
export class TierReward extends RewardKindHandler<OutcomeTierRef> {
  private readonly reward = engineReward('tier');
  apply(ctx: RewardContext, tier: OutcomeTierRef): void {
    this.reward.apply(ctx, tier);
  }
}

/** The built-in reward kinds' handlers, in the engine's order. */
export const CORE_REWARD_KINDS: ReadonlyArray<Type<RewardKindHandler>> = [DealReward, AdUnitReward, PointsReward, EventReward, TierReward];

/** What a built-in reward kind's @RewardKind says of it (its name, description and args class). */
export function rewardKindOptions(handler: Type<RewardKindHandler>): RewardKindOptions {
  const options = Reflect.getMetadata(RewardKind.KEY, handler) as RewardKindOptions | undefined;
  if (!options) throw new Error(`${handler.name} is not decorated with @RewardKind`);
  return options;
}

/** The built-in reward kinds: its providers are found by the extension registry, as an extension's are. */
@BuiltIn()
@Module({ providers: [...CORE_REWARD_KINDS] })
export class CoreRewardsModule {}
