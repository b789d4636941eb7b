import { Module } from '@nestjs/common';
import { EvaluationModule } from '../evaluation/evaluation.module.js';
import { RewardEffectsRepository } from '../extensions/effects/reward-effects.repository.js';
import { RunRewardEffect } from '../extensions/effects/run-reward-effect.use-case.js';
import { DeliverWebhookUseCase } from './deliver-webhook.use-case.js';
import { WebhooksProcessor } from './webhooks.processor.js';
import { WebhooksSweeper } from './webhooks.sweeper.js';

/** What a worker process runs for webhooks: the delivery processor (rewards' after-commit effects too) and the outbox sweeper. */
@Module({
  imports: [EvaluationModule],
  providers: [DeliverWebhookUseCase, WebhooksProcessor, WebhooksSweeper, RewardEffectsRepository, RunRewardEffect],
})
export class WebhooksWorkerModule {}
