/** The domain-actions module's face: perform and the built-in domain actions. */
export { DomainActionsModule } from './domain-actions.module.js';
export { CompleteCampaignAction, CoreActionsModule } from './complete-campaign.action.js';
