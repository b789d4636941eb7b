import { Module } from '@nestjs/common';
import { CoreRewardsModule } from '../rewards/core-rewards.js';
import { RulesCacheService } from './rules-cache.service.js';
import { RulesRepository } from './rules.repository.js';

/** Compiled campaign rules per organization, for whoever evaluates events (API and workers). */
@Module({ imports: [CoreRewardsModule], providers: [RulesRepository, RulesCacheService], exports: [RulesCacheService, RulesRepository] })
export class RulesModule {}
