import { Body, Controller, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import type { Tenant } from '../../common/http/request-context.js';
import { CreativeGroupsService } from './creative-groups.service.js';
import { CreateCreativeGroupBody, CreativeGroupDeletedResponse, CreativeGroupListResponse, UpdateCreativeGroupBody } from './dto/creative-group.dto.js';

const WRITE_ERRORS = ['missing_data', 'argument_error', 'validation', 'not_found'] as const;

@ApiTags('management: creative groups')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management')
export class CreativeGroupsController {
  constructor(private readonly groups: CreativeGroupsService) {}

  @Post('line_items/:line_item_id/creative_groups')
  @ApiOperation({ summary: 'Create a creative group in a line item' })
  @ApiCreatedResponse({ type: CreativeGroupListResponse })
  @ApiErrors(...WRITE_ERRORS)
  async create(
    @CurrentTenant() tenant: Tenant,
    @Param('line_item_id', new IdPipe('line item')) lineItemId: number,
    @Body() body: CreateCreativeGroupBody,
  ): Promise<CreativeGroupListResponse> {
    return { status: 'ok', creative_groups: [await this.groups.create(tenant, lineItemId, body.creative_group)] };
  }

  @Get('line_items/:line_item_id/creative_groups')
  @ApiOperation({ summary: "A line item's creative groups" })
  @ApiOkResponse({ type: CreativeGroupListResponse })
  @ApiErrors('not_found')
  async list(
    @CurrentTenant() tenant: Tenant,
    @Param('line_item_id', new IdPipe('line item')) lineItemId: number,
  ): Promise<CreativeGroupListResponse> {
    return { status: 'ok', creative_groups: await this.groups.list(tenant, lineItemId) };
  }

  @Get('creative_groups/:creative_group_id')
  @ApiOperation({ summary: 'Get a creative group' })
  @ApiOkResponse({ type: CreativeGroupListResponse })
  @ApiErrors('not_found')
  async get(
    @CurrentTenant() tenant: Tenant,
    @Param('creative_group_id', new IdPipe('creative group')) id: number,
  ): Promise<CreativeGroupListResponse> {
    return { status: 'ok', creative_groups: [await this.groups.get(tenant, id)] };
  }

  @Put('creative_groups/:creative_group_id')
  @ApiOperation({ summary: 'Update a creative group (partial: only the members sent change)' })
  @ApiOkResponse({ type: CreativeGroupListResponse })
  @ApiErrors(...WRITE_ERRORS)
  async update(
    @CurrentTenant() tenant: Tenant,
    @Param('creative_group_id', new IdPipe('creative group')) id: number,
    @Body() body: UpdateCreativeGroupBody,
  ): Promise<CreativeGroupListResponse> {
    return { status: 'ok', creative_groups: [await this.groups.update(tenant, id, body.creative_group)] };
  }

  @Delete('creative_groups/:creative_group_id')
  @ApiOperation({ summary: 'Delete a creative group with its creative (soft; the name gets a [DELETED AT ...] marker)' })
  @ApiOkResponse({ type: CreativeGroupDeletedResponse })
  @ApiErrors('not_found')
  async remove(
    @CurrentTenant() tenant: Tenant,
    @Param('creative_group_id', new IdPipe('creative group')) id: number,
  ): Promise<CreativeGroupDeletedResponse> {
    return { status: 'ok', creative_group: await this.groups.remove(tenant, id) };
  }
}
