import { Module } from '@nestjs/common';
import { EvaluationModule } from '../evaluation/index.js';
import { EventLogRepository } from '../events/index.js';
import { RunSimulationUseCase } from './run-simulation.use-case.js';
import { SimulationsProcessor } from './simulations.processor.js';
import { SimulationsRepository } from './simulations.repository.js';
import { SimulationsSweeper } from './simulations.sweeper.js';

/** What a worker process runs for simulations: the processor (the replay) and the sweeper of lost jobs. */
@Module({
  imports: [EvaluationModule],
  providers: [SimulationsRepository, EventLogRepository, RunSimulationUseCase, SimulationsProcessor, SimulationsSweeper],
})
export class SimulationsWorkerModule {}
