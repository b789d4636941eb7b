import { Module } from '@nestjs/common';
import { RulesModule } from '../../campaigns/index.js';
import { TenancyModule } from '../../tenancy/index.js';
import { TierPolicyController } from './tier-policy.controller.js';
import { TierPolicyPreview } from './tier-policy-preview.js';
import { TiersController } from './tiers.controller.js';
import { TierFacts } from './tier-facts.repository.js';
import { TierReviewsRepository } from './tier-reviews.repository.js';
import { TiersService } from './tiers.service.js';

@Module({
  imports: [TenancyModule, RulesModule],
  controllers: [TiersController, TierPolicyController],
  providers: [TiersService, TierPolicyPreview, TierReviewsRepository, TierFacts],
  exports: [TiersService, TierPolicyPreview, TierReviewsRepository],
})
export class TiersModule {}
