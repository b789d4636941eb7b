import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../../../common/clock.js';
import type { Customer } from '../../../database/entities/index.js';
import { customerTierStanding, type CompiledRules, type TierStanding } from '../../../engine/index.js';
import { RulesCacheService } from '../../campaigns/index.js';
import { TierFacts } from './tier-facts.repository.js';

/** A customer's tier standing under a period policy, with the rules it was computed on. */
export interface PeriodStanding {
  standing: TierStanding;
  rules: CompiledRules;
}

/**
 * The tier a period policy gives a customer as of now (contract §17), from their stored credits and tier outcomes:
 * what reads answer, a due review included before the workers have written it.
 */
@Injectable()
export class TierStandings {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly rules: RulesCacheService,
    private readonly facts: TierFacts,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Null under lifetime: the stored tier and lifetime points say it all (§5). */
  async of(customer: Pick<Customer, 'id' | 'organizationId' | 'tierFloorId'>): Promise<PeriodStanding | null> {
    const rules = await this.rules.get(customer.organizationId);
    if (rules.tierRules.policy.basis !== 'period') return null;
    const facts = (await this.facts.of(this.db, [customer.id], rules.tierRules.timeZone)).get(customer.id);
    return { rules, standing: customerTierStanding(rules, { tierFacts: facts, tierFloorId: customer.tierFloorId }, this.clock.now()) };
  }
}
