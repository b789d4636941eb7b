import { Module } from '@nestjs/common';
import { EvaluationModule } from '../evaluation/evaluation.module.js';
import { TenancyModule } from '../tenancy/tenancy.module.js';
import { PointsController } from './points.controller.js';
import { PointsRepository } from './points.repository.js';
import { PointsUseCase } from './points.use-case.js';

/** Contract §13: the points ledger, debits (and, in the worker, expiry). */
@Module({
  imports: [TenancyModule, EvaluationModule],
  controllers: [PointsController],
  providers: [PointsRepository, PointsUseCase],
  exports: [PointsRepository],
})
export class PointsModule {}
