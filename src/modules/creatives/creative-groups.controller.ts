import { Body, Controller, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import type { Tenant } from '../../common/http/request-context.js';
import { ApiIdParam } from '../../common/http/api-params.js';
import { CreativeGroupsService } from './creative-groups.service.js';
import { CreateCreativeGroupBody, CreativeGroupDeletedResponse, CreativeGroupListResponse, UpdateCreativeGroupBody } from './dto/creative-group.dto.js';

const WRITE_ERRORS = ['missing_data', 'argument_error', 'validation', 'not_found'] as const;

const LINE_ITEM_ID = () => ApiIdParam('line_item_id', 'The line item id');
const GROUP_ID = () => ApiIdParam('creative_group_id', 'The creative group id');
const LINE_ITEM_NOT_FOUND = 'not_found (404) when the line item does not exist, is deleted or belongs to another organization.';
const NOT_FOUND = 'not_found (404) when the creative group does not exist, is deleted or belongs to another organization.';
const WRITE_PROBLEMS =
  'missing_data (400) when the creative_group wrapper or a required member is absent; argument_error (400) for members it does not ' +
  'know; validation (400) for an invalid value (a bad datetime, ends_at not after starts_at, an unknown status, invalid targeting).';

@ApiTags('management: creative groups')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management')
export class CreativeGroupsController {
  constructor(private readonly groups: CreativeGroupsService) {}

  @Post('line_items/:line_item_id/creative_groups')
  @ApiOperation({
    summary: 'Create a creative group in a line item',
    description:
      'Creates a creative group of the line item. Answers 201 with creative_groups holding the new one. ' +
      `Errors: ${WRITE_PROBLEMS} ${LINE_ITEM_NOT_FOUND}`,
  })
  @LINE_ITEM_ID()
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
  @ApiOperation({
    summary: "List a line item's creative groups",
    description: `Answers the line item's creative groups that are not deleted, oldest first. Errors: ${LINE_ITEM_NOT_FOUND}`,
  })
  @LINE_ITEM_ID()
  @ApiOkResponse({ type: CreativeGroupListResponse })
  @ApiErrors('not_found')
  async list(
    @CurrentTenant() tenant: Tenant,
    @Param('line_item_id', new IdPipe('line item')) lineItemId: number,
  ): Promise<CreativeGroupListResponse> {
    return { status: 'ok', creative_groups: await this.groups.list(tenant, lineItemId) };
  }

  @Get('creative_groups/:creative_group_id')
  @ApiOperation({ summary: 'Get a creative group', description: `Answers creative_groups holding the group named by its id. Errors: ${NOT_FOUND}` })
  @GROUP_ID()
  @ApiOkResponse({ type: CreativeGroupListResponse })
  @ApiErrors('not_found')
  async get(
    @CurrentTenant() tenant: Tenant,
    @Param('creative_group_id', new IdPipe('creative group')) id: number,
  ): Promise<CreativeGroupListResponse> {
    return { status: 'ok', creative_groups: [await this.groups.get(tenant, id)] };
  }

  @Put('creative_groups/:creative_group_id')
  @ApiOperation({
    summary: 'Update a creative group (partial)',
    description:
      'Changes the members sent (targeting, when sent, replaces the stored list); the others keep their values. Answers ' +
      `creative_groups holding the group as stored. Errors: ${WRITE_PROBLEMS} ${NOT_FOUND}`,
  })
  @GROUP_ID()
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
  @ApiOperation({
    summary: 'Delete a creative group',
    description:
      'Soft deletes the creative group with its creative: they answer not_found afterwards and their names are free again. Answers ' +
      `the group as deleted: its name ends with [DELETED AT <timestamp>] and deleted_at is set. Errors: ${NOT_FOUND}`,
  })
  @GROUP_ID()
  @ApiOkResponse({ type: CreativeGroupDeletedResponse })
  @ApiErrors('not_found')
  async remove(
    @CurrentTenant() tenant: Tenant,
    @Param('creative_group_id', new IdPipe('creative group')) id: number,
  ): Promise<CreativeGroupDeletedResponse> {
    return { status: 'ok', creative_group: await this.groups.remove(tenant, id) };
  }
}
