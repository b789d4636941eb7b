import { Body, Controller, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../../common/http/id.pipe.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { CreateLineItemBody, LineItemDeletedResponse, LineItemListResponse, UpdateLineItemBody } from './dto/line-item.dto.js';
import { ApiIdParam } from '../../../common/http/api-params.js';
import { LineItemsService } from './line-items.service.js';

const WRITE_ERRORS = ['missing_data', 'argument_error', 'validation', 'not_found'] as const;

const CAMPAIGN_ID = () => ApiIdParam('campaign_id', 'The campaign id');
const LINE_ITEM_ID = () => ApiIdParam('line_item_id', 'The line item id');
const CAMPAIGN_NOT_FOUND = 'not_found (404) when the campaign does not exist, is deleted or belongs to another organization.';
const NOT_FOUND = 'not_found (404) when the line item does not exist, is deleted or belongs to another organization.';
const WRITE_PROBLEMS =
  'missing_data (400) when the line_item wrapper or a required member is absent; argument_error (400) for members it does not know; ' +
  'validation (400) for an invalid value (a bad datetime, ends_at not after starts_at, an unknown status)';

@ApiTags('management: line items')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management')
export class LineItemsController {
  constructor(private readonly lineItems: LineItemsService) {}

  @Post('campaigns/:campaign_id/line_items')
  @ApiOperation({
    summary: 'Create the line item of a campaign',
    description:
      'Creates the line item of the campaign: a campaign holds at most one that is not deleted. Answers 201 with line_items holding ' +
      `the new one. Errors: ${WRITE_PROBLEMS}, or when the campaign already has a line item. ${CAMPAIGN_NOT_FOUND}`,
  })
  @CAMPAIGN_ID()
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
  @ApiOperation({
    summary: "List a campaign's line items",
    description: `Answers the campaign's line items that are not deleted (at most one), oldest first. Errors: ${CAMPAIGN_NOT_FOUND}`,
  })
  @CAMPAIGN_ID()
  @ApiOkResponse({ type: LineItemListResponse })
  @ApiErrors('not_found')
  async list(@CurrentTenant() tenant: Tenant, @Param('campaign_id', new IdPipe('campaign')) campaignId: number): Promise<LineItemListResponse> {
    return { status: 'ok', line_items: await this.lineItems.list(tenant, campaignId) };
  }

  @Get('line_items/:line_item_id')
  @ApiOperation({ summary: 'Get a line item', description: `Answers line_items holding the line item named by its id. Errors: ${NOT_FOUND}` })
  @LINE_ITEM_ID()
  @ApiOkResponse({ type: LineItemListResponse })
  @ApiErrors('not_found')
  async get(@CurrentTenant() tenant: Tenant, @Param('line_item_id', new IdPipe('line item')) id: number): Promise<LineItemListResponse> {
    return { status: 'ok', line_items: [await this.lineItems.get(tenant, id)] };
  }

  @Put('line_items/:line_item_id')
  @ApiOperation({
    summary: 'Update a line item (partial)',
    description:
      'Changes the members sent; the others keep their values (ends_at must still come after starts_at). Answers line_items holding ' +
      `the line item as stored. Errors: ${WRITE_PROBLEMS}. ${NOT_FOUND}`,
  })
  @LINE_ITEM_ID()
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
  @ApiOperation({
    summary: 'Delete a line item',
    description:
      'Soft deletes the line item with its creative groups and creatives: they answer not_found afterwards and their names are free ' +
      'again. Answers the line item as deleted: its name ends with [DELETED AT <timestamp>] and deleted_at is set. Errors: ' +
      NOT_FOUND,
  })
  @LINE_ITEM_ID()
  @ApiOkResponse({ type: LineItemDeletedResponse })
  @ApiErrors('not_found')
  async remove(@CurrentTenant() tenant: Tenant, @Param('line_item_id', new IdPipe('line item')) id: number): Promise<LineItemDeletedResponse> {
    return { status: 'ok', line_item: await this.lineItems.remove(tenant, id) };
  }
}
