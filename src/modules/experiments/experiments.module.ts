import { Module } from '@nestjs/common';
import { AnalyticsModule } from '../analytics/index.js';
import { AuditModule } from '../audit/index.js';
import { CampaignsModule } from '../campaigns/index.js';
import { TenancyModule } from '../tenancy/index.js';
import { ExperimentsController } from './experiments.controller.js';
import { ExperimentsRepository } from './experiments.repository.js';
import { ExperimentsUseCase } from './experiments.use-case.js';

/** Experiments (contract §20): results and the end. Assignment and measuring happen in the engine, on the event path. */
@Module({
  imports: [TenancyModule, CampaignsModule, AnalyticsModule, AuditModule],
  controllers: [ExperimentsController],
  providers: [ExperimentsUseCase, ExperimentsRepository],
})
export class ExperimentsModule {}
