import { Body, Controller, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../../common/http/id.pipe.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { CreateLineItemBody, LineItemDeletedResponse, LineItemListResponse, UpdateLineItemBody } from './dto/line-item.dto.js';
import { LineItemsService } from './line-items.service.js';

const WRITE_ERRORS = ['missing_data', 'argument_error', 'validation', 'not_found'] as const;

@ApiTags('management: line items')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management')
export class LineItemsController {
  constructor(private readonly lineItems: LineItemsService) {}

  @Post('campaigns/:campaign_id/line_items')
  @ApiOperation({ summary: 'Create the line item of a campaign (at most one that is not deleted per campaign)' })
  @ApiCreatedResponse({ type: LineItemListResponse })
  @ApiErrors(...WRITE_ERRORS)
  async create(
    @CurrentTenant() tenant: Tenant,
    @Param('campaign_id', new IdPipe('campaign')) campaignId: number,
    @Body() body: CreateLineItemBody,
  ): Promise<LineItemListResponse> {
    return { status: 'ok', line_items: [await this.lineItems.create(tenant, campaignId, body.line_item)] };
  }

  @Get('campaigns/:campaign_id/line_items')
  @ApiOperation({ summary: "A campaign's line items" })
  @ApiOkResponse({ type: LineItemListResponse })
  @ApiErrors('not_found')
  async list(@CurrentTenant() tenant: Tenant, @Param('campaign_id', new IdPipe('campaign')) campaignId: number): Promise<LineItemListResponse> {
    return { status: 'ok', line_items: await this.lineItems.list(tenant, campaignId) };
  }

  @Get('line_items/:line_item_id')
  @ApiOperation({ summary: 'Get a line item' })
  @ApiOkResponse({ type: LineItemListResponse })
  @ApiErrors('not_found')
  async get(@CurrentTenant() tenant: Tenant, @Param('line_item_id', new IdPipe('line item')) id: number): Promise<LineItemListResponse> {
    return { status: 'ok', line_items: [await this.lineItems.get(tenant, id)] };
  }

  @Put('line_items/:line_item_id')
  @ApiOperation({ summary: 'Update a line item (partial: only the members sent change)' })
  @ApiOkResponse({ type: LineItemListResponse })
  @ApiErrors(...WRITE_ERRORS)
  async update(
    @CurrentTenant() tenant: Tenant,
    @Param('line_item_id', new IdPipe('line item')) id: number,
    @Body() body: UpdateLineItemBody,
  ): Promise<LineItemListResponse> {
    return { status: 'ok', line_items: [await this.lineItems.update(tenant, id, body.line_item)] };
  }

  @Delete('line_items/:line_item_id')
  @ApiOperation({ summary: 'Delete a line item with its creative groups and creatives (soft; the name gets a [DELETED AT ...] marker)' })
  @ApiOkResponse({ type: LineItemDeletedResponse })
  @ApiErrors('not_found')
  async remove(@CurrentTenant() tenant: Tenant, @Param('line_item_id', new IdPipe('line item')) id: number): Promise<LineItemDeletedResponse> {
    return { status: 'ok', line_item: await this.lineItems.remove(tenant, id) };
  }
}
