/**
 * What an extension imports: the only entry point of the extension surface (docs/decisions/0018-extension-surface.md).
 * An extension is a Nest module whose providers carry these decorators; the application finds them at boot.
 */
export { RewardKind, CriteriaOperator, EventEnricher } from './decorators.js';
export type { ExtensionOptions, RewardKindOptions, CriteriaOperatorOptions } from './decorators.js';
export { RewardKindHandler, CriteriaOperatorHandler, EventEnricherHandler } from './kinds.js';
export type { EnrichableEvent, EnrichContext } from './kinds.js';
export type { CompiledRules, CustomerSnapshot, RewardContext } from '../engine/index.js';
