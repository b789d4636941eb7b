/** The customers-state module's face: what other modules may import of it. */
export { CustomersStateModule } from './customers-state.module.js';
export { CustomersService } from './customers.service.js';
export type { CustomerRef } from './customers.service.js';
export { NotificationView, V1NotificationView } from './dto/notification.dto.js';
export { TierHistoryEntry } from './dto/tier-standing.dto.js';
export { ExperimentAssignmentView, UserView } from './dto/user.dto.js';
export { TierFacts } from './tiers/tier-facts.repository.js';
export { TierReviewsRepository } from './tiers/tier-reviews.repository.js';
export type { DueCustomer, ReviewedCustomer } from './tiers/tier-reviews.repository.js';
export { TiersModule } from './tiers/tiers.module.js';
