import { Module } from '@nestjs/common';
import { RulesCacheService } from './rules-cache.service.js';

/** Compiled campaign rules per organization, for whoever evaluates events (API and workers). */
@Module({ providers: [RulesCacheService], exports: [RulesCacheService] })
export class RulesModule {}
