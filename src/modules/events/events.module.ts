import { Module } from '@nestjs/common';
import { RulesModule } from '../campaigns/rules/rules.module.js';
import { TenancyModule } from '../tenancy/tenancy.module.js';
import { EventsRepository } from './events.repository.js';
import { WebhookSubscriptions } from '../webhooks/subscriptions.js';
import { RetrievalUseCase } from './retrieval.use-case.js';
import { V1EventsController } from './v1-events.controller.js';
import { V1EventsUseCase } from './v1-events.use-case.js';
import { V2EventsController } from './v2-events.controller.js';
import { V2EventsUseCase } from './v2-events.use-case.js';

@Module({
  imports: [TenancyModule, RulesModule],
  controllers: [V1EventsController, V2EventsController],
  providers: [EventsRepository, WebhookSubscriptions, V1EventsUseCase, V2EventsUseCase, RetrievalUseCase],
  exports: [EventsRepository, WebhookSubscriptions],
})
export class EventsModule {}
