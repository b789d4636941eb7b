import { Module } from '@nestjs/common';
import { EvaluationModule } from '../../evaluation/evaluation.module.js';
import { TierReviewSweeper } from './tier-review.sweeper.js';

/** What a worker process runs for tiers: the review sweeper (contract §17). */
@Module({
  imports: [EvaluationModule],
  providers: [TierReviewSweeper],
})
export class TiersWorkerModule {}
