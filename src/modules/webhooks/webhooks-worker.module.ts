import { Module } from '@nestjs/common';
import { DeliverWebhookUseCase } from './deliver-webhook.use-case.js';
import { WebhooksProcessor } from './webhooks.processor.js';
import { WebhooksSweeper } from './webhooks.sweeper.js';

/** What a worker process runs for webhooks: the delivery processor and the outbox sweeper. */
@Module({
  providers: [DeliverWebhookUseCase, WebhooksProcessor, WebhooksSweeper],
})
export class WebhooksWorkerModule {}
