import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiIdParam } from '../../common/http/api-params.js';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import { PageQuery } from '../../common/http/pagination.dto.js';
import type { Tenant } from '../../common/http/request-context.js';
import { CreatedWebhookResponse, CreateWebhookBody, DeliveryListResponse, WebhookListResponse, WebhookResponse } from './dto/webhook.dto.js';
import { WebhooksService } from './webhooks.service.js';

const ApiWebhookIdParam = () => ApiIdParam('webhook_id', "The webhook's id (the `id` of POST .../management/webhooks). An unknown, deleted or another organization's webhook answers 404 not_found", 3);

@ApiTags('management: webhooks')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @ApiOperation({
    summary: 'Create a webhook',
    description:
      'Subscribes a URL to event types of the organization: notification.created (a triggered creative produced a notification), ' +
      'behavior.completed, tier.changed and points.credited. Every evaluation that commits then sends the URL one signed JSON POST ' +
      'per event of those types, retried with exponential backoff until a 2xx (10 attempts in all). Answers 201 with the webhook and its signing secret, ' +
      'shown only in this answer. Errors: 400 missing_data when the `webhook` wrapper, url or event_types is absent or null; ' +
      '400 argument_error for a member not listed; 400 validation for a URL that is not absolute http(s) or names a private address ' +
      '(see url), or event_types empty, repeated or unknown.',
  })
  @ApiCreatedResponse({ type: CreatedWebhookResponse, description: 'The webhook created, with its signing secret' })
  @ApiErrors('missing_data', 'argument_error', 'validation')
  async create(@CurrentTenant() tenant: Tenant, @Body() body: CreateWebhookBody): Promise<CreatedWebhookResponse> {
    return { status: 'ok', webhook: await this.webhooks.create(tenant, body.webhook) };
  }

  @Get()
  @ApiOperation({
    summary: 'List webhooks',
    description: "The organization's live webhooks, oldest first, without their secrets (answered only on create). Not paged.",
  })
  @ApiOkResponse({ type: WebhookListResponse, description: 'The live webhooks, oldest first' })
  async list(@CurrentTenant() tenant: Tenant): Promise<WebhookListResponse> {
    return { status: 'ok', webhooks: await this.webhooks.list(tenant) };
  }

  @Delete(':webhook_id')
  @ApiOperation({
    summary: 'Delete a webhook',
    description:
      'Soft delete: nothing more is delivered to the webhook, its pending and retrying deliveries are cancelled, and it answers 404 ' +
      'afterwards. Answers the deleted webhook with deleted_at. 404 not_found for an unknown or deleted webhook.',
  })
  @ApiWebhookIdParam()
  @ApiOkResponse({ type: WebhookResponse, description: 'The deleted webhook, with deleted_at' })
  @ApiErrors('not_found')
  async remove(@CurrentTenant() tenant: Tenant, @Param('webhook_id', new IdPipe('webhook')) id: number): Promise<WebhookResponse> {
    return { status: 'ok', webhook: await this.webhooks.remove(tenant, id) };
  }

  @Get(':webhook_id/deliveries')
  @ApiOperation({
    summary: "List a webhook's deliveries",
    description:
      "The webhook's deliveries, newest first, each with its status and every attempt made (HTTP status, error, duration). " +
      '`limit` (1-100, default 10) and `page` (from 1) page it; out of range is 400 validation. 404 not_found for an unknown or deleted webhook.',
  })
  @ApiWebhookIdParam()
  @ApiOkResponse({ type: DeliveryListResponse, description: 'A page of the deliveries, newest first' })
  @ApiErrors('not_found', 'validation')
  deliveries(@CurrentTenant() tenant: Tenant, @Param('webhook_id', new IdPipe('webhook')) id: number, @Query() query: PageQuery): Promise<DeliveryListResponse> {
    return this.webhooks.deliveries(tenant, id, query);
  }
}
