import { Module } from '@nestjs/common';
import { CampaignsModule } from '../campaigns/index.js';
import { TenancyModule } from '../tenancy/index.js';
import { SimulationsController } from './simulations.controller.js';
import { SimulationsRepository } from './simulations.repository.js';
import { SimulationsService } from './simulations.service.js';

/** Simulations on the API side (contract §15): create, read, list, cancel; a worker runs them (SimulationsWorkerModule). */
@Module({
  imports: [TenancyModule, CampaignsModule],
  controllers: [SimulationsController],
  providers: [SimulationsService, SimulationsRepository],
})
export class SimulationsModule {}
