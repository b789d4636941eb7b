import { Module } from '@nestjs/common';
import { EvaluationModule } from '../evaluation/evaluation.module.js';
import { PointsExpirySweeper } from './points-expiry.sweeper.js';
import { PointsRepository } from './points.repository.js';

/** What a worker process runs for points: the expiry sweeper. */
@Module({
  imports: [EvaluationModule],
  providers: [PointsRepository, PointsExpirySweeper],
})
export class PointsWorkerModule {}
