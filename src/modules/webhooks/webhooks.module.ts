import { Module } from '@nestjs/common';
import { TenancyModule } from '../tenancy/index.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksService } from './webhooks.service.js';

/** The management routes of webhooks (API process). Deliveries are sent by WebhooksWorkerModule in the worker. */
@Module({
  imports: [TenancyModule],
  controllers: [WebhooksController],
  providers: [WebhooksService],
})
export class WebhooksModule {}
