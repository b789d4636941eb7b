import { Module } from '@nestjs/common';
import { AnalyticsRepository } from '../analytics/index.js';
import { ErasureRepository } from './erasure.repository.js';
import { ErasureSweeper } from './erasure.sweeper.js';

/** What a worker process runs for data rights: the erasure worker (decision 0024). */
@Module({ providers: [ErasureRepository, ErasureSweeper, AnalyticsRepository] })
export class DataRightsWorkerModule {}
