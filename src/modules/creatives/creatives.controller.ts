import { Body, Controller, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import type { Tenant } from '../../common/http/request-context.js';
import { ApiIdParam } from '../../common/http/api-params.js';
import { CreativesService } from './creatives.service.js';
import {
  CREATE_CREATIVE_EXAMPLES,
  CreateCreativeBody,
  CreativeListResponse,
  ScheduledDeliveryInput,
  TriggeredDeliveryInput,
  UPDATE_CREATIVE_EXAMPLES,
  UpdateCreativeBody,
} from './dto/creative.dto.js';

const WRITE_ERRORS = ['missing_data', 'argument_error', 'validation', 'not_found'] as const;

const GROUP_ID = () => ApiIdParam('creative_group_id', 'The creative group id');
const CREATIVE_ID = () => ApiIdParam('creative_id', 'The creative id');
const GROUP_NOT_FOUND = 'not_found (404) when the creative group does not exist, is deleted or belongs to another organization.';
const NOT_FOUND = 'not_found (404) when the creative does not exist, is deleted or belongs to another organization.';
const WRITE_PROBLEMS =
  'missing_data (400) when the creative wrapper or a required member is absent, including behavior_id for triggered and ' +
  'scheduled_delivery_date for scheduled delivery; argument_error (400) for members it does not know; validation (400) for an ' +
  'invalid value: an unknown status, ad_type or creative_type, a creative_type the ad_type does not allow, an application that is ' +
  "not the organization's, a behavior that is not of the creative's campaign, a scheduled_delivery_date not in the future, or " +
  'behavior_id with scheduled and scheduled_delivery_date with triggered delivery.';

@ApiTags('management: creatives')
@ApiExtraModels(TriggeredDeliveryInput, ScheduledDeliveryInput)
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management')
export class CreativesController {
  constructor(private readonly creatives: CreativesService) {}

  @Post('creative_groups/:creative_group_id/creatives')
  @ApiOperation({
    summary: 'Create the creative of a creative group',
    description:
      'Creates the creative (message) of the group: a group holds at most one that is not deleted. Triggered delivery sends a ' +
      'notification each time a targeted customer completes the behavior; scheduled delivery builds the audience once, at the date. ' +
      `Answers 201 with creatives holding the new one. Errors: ${WRITE_PROBLEMS} validation (400) too when the group already has a ` +
      `creative. ${GROUP_NOT_FOUND}`,
  })
  @GROUP_ID()
  @ApiBody({ type: CreateCreativeBody, examples: CREATE_CREATIVE_EXAMPLES })
  @ApiCreatedResponse({ type: CreativeListResponse })
  @ApiErrors(...WRITE_ERRORS)
  async create(
    @CurrentTenant() tenant: Tenant,
    @Param('creative_group_id', new IdPipe('creative group')) groupId: number,
    @Body() body: CreateCreativeBody,
  ): Promise<CreativeListResponse> {
    return { status: 'ok', creatives: [await this.creatives.create(tenant, groupId, body.creative)] };
  }

  @Get('creative_groups/:creative_group_id/creatives')
  @ApiOperation({
    summary: "List a creative group's creatives",
    description: `Answers the group's creatives that are not deleted (at most one). Errors: ${GROUP_NOT_FOUND}`,
  })
  @GROUP_ID()
  @ApiOkResponse({ type: CreativeListResponse })
  @ApiErrors('not_found')
  async list(
    @CurrentTenant() tenant: Tenant,
    @Param('creative_group_id', new IdPipe('creative group')) groupId: number,
  ): Promise<CreativeListResponse> {
    return { status: 'ok', creatives: await this.creatives.list(tenant, groupId) };
  }

  @Get('creatives/:creative_id')
  @ApiOperation({ summary: 'Get a creative', description: `Answers creatives holding the creative named by its id. Errors: ${NOT_FOUND}` })
  @CREATIVE_ID()
  @ApiOkResponse({ type: CreativeListResponse })
  @ApiErrors('not_found')
  async get(@CurrentTenant() tenant: Tenant, @Param('creative_id', new IdPipe('creative')) id: number): Promise<CreativeListResponse> {
    return { status: 'ok', creatives: [await this.creatives.get(tenant, id)] };
  }

  @Put('creatives/:creative_id')
  @ApiOperation({
    summary: 'Update a creative (partial)',
    description:
      'Changes the members sent; the others keep their values. issue_audience_csv, when sent, replaces the stored delivery settings ' +
      'whole (and moves or cancels the audience job of a scheduled creative). Answers creatives holding the creative as stored. ' +
      `Errors: ${WRITE_PROBLEMS} ${NOT_FOUND}`,
  })
  @CREATIVE_ID()
  @ApiBody({ type: UpdateCreativeBody, examples: UPDATE_CREATIVE_EXAMPLES })
  @ApiOkResponse({ type: CreativeListResponse })
  @ApiErrors(...WRITE_ERRORS)
  async update(
    @CurrentTenant() tenant: Tenant,
    @Param('creative_id', new IdPipe('creative')) id: number,
    @Body() body: UpdateCreativeBody,
  ): Promise<CreativeListResponse> {
    return { status: 'ok', creatives: [await this.creatives.update(tenant, id, body.creative)] };
  }

  @Delete('creatives/:creative_id')
  @ApiOperation({
    summary: 'Delete a creative',
    description:
      'Soft deletes the creative: it stops sending and answers not_found afterwards (a scheduled audience job is cancelled). ' +
      `Answers creatives holding it as deleted: its name ends with [DELETED AT <timestamp>] and deleted_at is set. Errors: ${NOT_FOUND}`,
  })
  @CREATIVE_ID()
  @ApiOkResponse({ type: CreativeListResponse })
  @ApiErrors('not_found')
  async remove(@CurrentTenant() tenant: Tenant, @Param('creative_id', new IdPipe('creative')) id: number): Promise<CreativeListResponse> {
    return { status: 'ok', creatives: [await this.creatives.remove(tenant, id)] };
  }
}
