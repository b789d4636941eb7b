import { Module } from '@nestjs/common';
import { CampaignsModule } from '../campaigns/index.js';
import { TenancyModule } from '../tenancy/index.js';
import { AnalyticsController } from './analytics.controller.js';
import { AnalyticsRepository } from './analytics.repository.js';
import { AnalyticsUseCase } from './analytics.use-case.js';

/** Campaign analytics (contract §19): the read side of the read model the event path writes (decision 0022). */
@Module({
  imports: [TenancyModule, CampaignsModule],
  controllers: [AnalyticsController],
  providers: [AnalyticsUseCase, AnalyticsRepository],
  exports: [AnalyticsRepository],
})
export class AnalyticsModule {}
