import { Module } from '@nestjs/common';
import { EvaluationModule } from '../evaluation/evaluation.module.js';
import { EventsProcessor } from './events.processor.js';
import { EventsSweeper } from './events.sweeper.js';

/** What a worker process runs for events: the queue processor and the sweeper. */
@Module({
  imports: [EvaluationModule],
  providers: [EventsProcessor, EventsSweeper],
})
export class EventsWorkerModule {}
