import { Module } from '@nestjs/common';
import { EvaluationModule } from '../evaluation/index.js';
import { TenancyModule } from '../tenancy/index.js';
import { RejectedEventsController } from './rejected-events.controller.js';
import { RetrievalUseCase } from './retrieval.use-case.js';
import { V1EventsController } from './v1-events.controller.js';
import { V1EventsUseCase } from './v1-events.use-case.js';
import { V2EventsController } from './v2-events.controller.js';
import { V2EventsUseCase } from './v2-events.use-case.js';

@Module({
  imports: [TenancyModule, EvaluationModule],
  controllers: [V1EventsController, V2EventsController, RejectedEventsController],
  providers: [V1EventsUseCase, V2EventsUseCase, RetrievalUseCase],
  exports: [RetrievalUseCase],
})
export class EventsModule {}
