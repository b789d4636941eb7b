import { Module } from '@nestjs/common';
import { EvaluationModule } from '../evaluation/index.js';
import { EventsProcessor } from './events.processor.js';
import { EventsSweeper } from './events.sweeper.js';
import { EventLogMaintenance } from './event-log/event-log-maintenance.js';

/** What a worker process runs for events: the queue processor, the sweeper and the event log's partitions. */
@Module({
  imports: [EvaluationModule],
  providers: [EventsProcessor, EventsSweeper, EventLogMaintenance],
})
export class EventsWorkerModule {}
