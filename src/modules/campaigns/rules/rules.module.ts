import { Module } from '@nestjs/common';
import { RulesCacheService } from './rules-cache.service.js';
import { RulesRepository } from './rules.repository.js';

/** Compiled campaign rules per organization, for whoever evaluates events (API and workers). */
@Module({ providers: [RulesRepository, RulesCacheService], exports: [RulesCacheService, RulesRepository] })
export class RulesModule {}
