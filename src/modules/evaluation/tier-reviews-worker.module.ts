import { Module } from '@nestjs/common';
import { TierFacts, TierReviewsRepository } from '../customers-state/index.js';
import { EvaluationModule } from './evaluation.module.js';
import { TierReviewSweeper } from './tier-review.sweeper.js';

/** What a worker process runs for tiers: the review sweeper (contract §17). */
@Module({
  imports: [EvaluationModule],
  providers: [TierReviewSweeper, TierReviewsRepository, TierFacts],
})
export class TierReviewsWorkerModule {}
