import { Module } from '@nestjs/common';
import { CoreActionsModule } from './complete-campaign.action.js';
import { EvaluationModule } from '../evaluation/index.js';
import { TenancyModule } from '../tenancy/index.js';
import { PerformController } from './perform.controller.js';
import { PerformRepository } from './perform.repository.js';
import { PerformUseCase } from './perform.use-case.js';

@Module({
  imports: [TenancyModule, EvaluationModule, CoreActionsModule],
  controllers: [PerformController],
  providers: [PerformRepository, PerformUseCase],
})
export class DomainActionsModule {}
