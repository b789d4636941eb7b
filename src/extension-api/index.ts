/**
 * What an extension imports: the only entry point of the extension surface (docs/decisions/0018-extension-surface.md).
 * An extension is a Nest module whose providers carry these decorators; the application finds them at boot.
 */
export { DomainAction, RewardKind, CriteriaOperator, EventEnricher } from './decorators.js';
export type { ExtensionOptions, DomainActionOptions, RewardKindOptions, CriteriaOperatorOptions } from './decorators.js';
export { DomainActionHandler, RewardKindHandler, CriteriaOperatorHandler, EventEnricherHandler } from './kinds.js';
export type { CampaignCompletion, DomainActionContext, DomainActionDecision, DomainEvent, DomainResult, DomainRows, EnrichableEvent, EnrichContext, RewardEffectContext } from './kinds.js';
export type { CampaignState, CustomerView, FlatValue, OfferRule, PerformFailureReason, RewardContext, RulesView, TierRule } from '../engine/index.js';
/** The behaviors that events (and the events their outcomes raise) reach, and those of a campaign: for DomainActionHandler.involved. */
export { behaviorsInvolved, performBehaviorsInvolved } from '../engine/index.js';
