import { Module } from '@nestjs/common';
import { EvaluationModule } from '../evaluation/index.js';
import { LedgerBackfill } from './ledger-backfill.js';
import { LedgerBackfillRepository } from './ledger-backfill.repository.js';
import { PointsExpirySweeper } from './points-expiry.sweeper.js';
import { PointsRepository } from './points.repository.js';

/** What a worker process runs for points: the expiry sweeper, and the ledger's backfill once at start (decision 0019). */
@Module({
  imports: [EvaluationModule],
  providers: [PointsRepository, PointsExpirySweeper, LedgerBackfillRepository, LedgerBackfill],
})
export class PointsWorkerModule {}
