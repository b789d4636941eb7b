import { Module } from '@nestjs/common';
import { EvaluationModule } from '../evaluation/index.js';
import { RewardEffectsProcessor } from './reward-effects.processor.js';
import { RewardEffectsRepository } from './reward-effects.repository.js';
import { RewardEffectsSweeper } from './reward-effects.sweeper.js';
import { RunRewardEffect } from './run-reward-effect.use-case.js';

/** What a worker process runs for rewards' after-commit effects: the reward-effects queue's processor and its sweeper (lost jobs, retention). */
@Module({
  imports: [EvaluationModule],
  providers: [RewardEffectsRepository, RunRewardEffect, RewardEffectsProcessor, RewardEffectsSweeper],
})
export class RewardEffectsWorkerModule {}
