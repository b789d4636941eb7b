import { Module } from '@nestjs/common';
import { AnalyticsBackfill } from './analytics-backfill.js';
import { AnalyticsBackfillRepository } from './analytics-backfill.repository.js';
import { AnalyticsRepository } from './analytics.repository.js';
import { AnalyticsSweeper } from './analytics.sweeper.js';

/** What a worker process runs for campaign analytics: the fold of the event path's activity, and the backfill (decision 0022). */
@Module({ providers: [AnalyticsRepository, AnalyticsSweeper, AnalyticsBackfillRepository, AnalyticsBackfill] })
export class AnalyticsWorkerModule {}
