import { Module } from '@nestjs/common';
import { AudienceJobsProcessor } from './audience-jobs.processor.js';
import { AudienceJobsSweeper } from './audience-jobs.sweeper.js';
import { BuildAudienceUseCase } from './build-audience.use-case.js';

/** What a worker process runs for scheduled delivery: the audience job processor and its sweeper. */
@Module({
  providers: [BuildAudienceUseCase, AudienceJobsProcessor, AudienceJobsSweeper],
})
export class AudienceJobsWorkerModule {}
