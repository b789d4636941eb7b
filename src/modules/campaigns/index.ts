/** The campaigns module's face: what other modules may import of it. */
export { BehaviorsModule } from './behaviors/behaviors.module.js';
export { campaignView } from './campaign.view.js';
export { CampaignsModule } from './campaigns.module.js';
export { CampaignsService } from './campaigns.service.js';
export { DATETIME_FORMS } from './dto/campaign.dto.js';
export { ExperimentView } from './dto/experiment.dto.js';
export { LineItemsModule } from './line-items/line-items.module.js';
export { datesInOrder, LineItemsService } from './line-items/line-items.service.js';
export { OffersModule } from './offers/offers.module.js';
export { MESSAGE_TYPES, toRuleSet } from './rules/rule-set.mapper.js';
export { RulesCacheService } from './rules/rules-cache.service.js';
export { RulesModule } from './rules/rules.module.js';
export { CoreRewardsModule } from './rewards/core-rewards.js';
export { RulesRepository } from './rules/rules.repository.js';
