import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import { PageQuery } from '../../common/http/pagination.dto.js';
import type { Tenant } from '../../common/http/request-context.js';
import { CreatedWebhookResponse, CreateWebhookBody, DeliveryListResponse, WebhookListResponse, WebhookResponse } from './dto/webhook.dto.js';
import { WebhooksService } from './webhooks.service.js';

@ApiTags('management: webhooks')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @ApiOperation({ summary: 'Subscribe a URL to webhook events; the answer carries the signing secret, shown only this once' })
  @ApiCreatedResponse({ type: CreatedWebhookResponse })
  @ApiErrors('missing_data', 'argument_error', 'validation')
  async create(@CurrentTenant() tenant: Tenant, @Body() body: CreateWebhookBody): Promise<CreatedWebhookResponse> {
    return { status: 'ok', webhook: await this.webhooks.create(tenant, body.webhook) };
  }

  @Get()
  @ApiOperation({ summary: "List the organization's webhooks, oldest first (never the secret)" })
  @ApiOkResponse({ type: WebhookListResponse })
  async list(@CurrentTenant() tenant: Tenant): Promise<WebhookListResponse> {
    return { status: 'ok', webhooks: await this.webhooks.list(tenant) };
  }

  @Delete(':webhook_id')
  @ApiOperation({ summary: 'Delete a webhook (soft): nothing more is delivered to it; open deliveries are cancelled' })
  @ApiOkResponse({ type: WebhookResponse })
  @ApiErrors('not_found')
  async remove(@CurrentTenant() tenant: Tenant, @Param('webhook_id', new IdPipe('webhook')) id: number): Promise<WebhookResponse> {
    return { status: 'ok', webhook: await this.webhooks.remove(tenant, id) };
  }

  @Get(':webhook_id/deliveries')
  @ApiOperation({ summary: "A webhook's deliveries, newest first, each with every attempt (limit 1..100, default 10; page from 1)" })
  @ApiOkResponse({ type: DeliveryListResponse })
  @ApiErrors('not_found', 'validation')
  deliveries(@CurrentTenant() tenant: Tenant, @Param('webhook_id', new IdPipe('webhook')) id: number, @Query() query: PageQuery): Promise<DeliveryListResponse> {
    return this.webhooks.deliveries(tenant, id, query);
  }
}
