import { Module } from '@nestjs/common';
import { TenancyModule } from '../tenancy/index.js';
import { CustomersController } from './customers.controller.js';
import { CustomerExperiments } from './customer-experiments.repository.js';
import { CustomersService } from './customers.service.js';
import { NotificationsService } from './notifications.service.js';
import { TierFacts } from './tiers/tier-facts.repository.js';
import { TierStandings } from './tiers/tier-standings.js';
import { RulesModule } from '../campaigns/index.js';

@Module({
  imports: [TenancyModule, RulesModule],
  controllers: [CustomersController],
  providers: [CustomersService, NotificationsService, TierStandings, TierFacts, CustomerExperiments],
  exports: [CustomersService],
})
export class CustomersStateModule {}
