import { Module } from '@nestjs/common';
import { RulesModule } from '../campaigns/rules/rules.module.js';
import { EventsProcessor } from './events.processor.js';
import { EventsRepository } from './events.repository.js';
import { WebhookSubscriptions } from '../webhooks/subscriptions.js';
import { ProcessStoredEventsUseCase } from './process-stored.use-case.js';
import { EventsSweeper } from './events.sweeper.js';

/** What a worker process runs for events: the queue processor and the sweeper. */
@Module({
  imports: [RulesModule],
  providers: [EventsRepository, WebhookSubscriptions, ProcessStoredEventsUseCase, EventsProcessor, EventsSweeper],
})
export class EventsWorkerModule {}
