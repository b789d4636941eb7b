import { Module } from '@nestjs/common';
import { EvaluationModule } from '../evaluation/index.js';
import { TenancyModule } from '../tenancy/index.js';
import { PointsController } from './points.controller.js';
import { PointsRepository } from './points.repository.js';
import { PointsUseCase } from './points.use-case.js';
import { ReversalRepository } from './reversal.repository.js';
import { ReversalUseCase } from './reversal.use-case.js';
import { ReversalsController } from './reversals.controller.js';

/** Contract §13: the points ledger, debits, reversals (and, in the worker, expiry). */
@Module({
  imports: [TenancyModule, EvaluationModule],
  controllers: [PointsController, ReversalsController],
  providers: [PointsRepository, PointsUseCase, ReversalRepository, ReversalUseCase],
  exports: [PointsRepository],
})
export class PointsModule {}
