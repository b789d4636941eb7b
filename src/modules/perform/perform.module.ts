import { Module } from '@nestjs/common';
import { RulesModule } from '../campaigns/rules/rules.module.js';
import { EventsModule } from '../events/events.module.js';
import { TenancyModule } from '../tenancy/tenancy.module.js';
import { PerformController } from './perform.controller.js';
import { PerformRepository } from './perform.repository.js';
import { PerformUseCase } from './perform.use-case.js';

@Module({
  imports: [TenancyModule, RulesModule, EventsModule],
  controllers: [PerformController],
  providers: [PerformRepository, PerformUseCase],
})
export class PerformModule {}
