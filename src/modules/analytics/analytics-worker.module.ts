import { Module } from '@nestjs/common';
import { AnalyticsRepository } from './analytics.repository.js';
import { AnalyticsSweeper } from './analytics.sweeper.js';

/** What a worker process runs for campaign analytics: the fold of the event path's activity (decision 0022). */
@Module({ providers: [AnalyticsRepository, AnalyticsSweeper] })
export class AnalyticsWorkerModule {}
