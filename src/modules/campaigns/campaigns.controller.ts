import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import { PageQuery } from '../../common/http/pagination.dto.js';
import type { Tenant } from '../../common/http/request-context.js';
import { ApiIdParam } from '../../common/http/api-params.js';
import { CampaignsService } from './campaigns.service.js';
import {
  CampaignListResponse,
  CampaignResponse,
  CreateCampaignBody,
  NavigationResponse,
  UpdateCampaignBody,
} from './dto/campaign.dto.js';

const WRITE_ERRORS = ['missing_data', 'argument_error', 'validation'] as const;

const CAMPAIGN_ID = () => ApiIdParam('campaign_id', 'The campaign id');
const PERMALINK = () => ApiParam({ name: 'permalink', type: String, description: "The campaign's permalink (unique per organization)" });
const NOT_FOUND = 'not_found (404) when the campaign does not exist, is deleted or belongs to another organization.';
const WRITE_PROBLEMS =
  'missing_data (400) when the campaign wrapper or a required member is absent; argument_error (400) for members it does not know; ' +
  'validation (400) for an invalid value: a bad datetime, ends_at not after starts_at, an unknown status, a division or prerequisite ' +
  'campaign that is not the organization\'s, invalid targeting (an attribute named __proto__, constructor or prototype included), ' +
  'a name or permalink another campaign of the organization uses, or a campaign becoming live whose goals would take the ' +
  "organization's live campaigns past LIMIT_LIVE_GOALS_PER_ORGANIZATION goals (default 5,000; the message names the limit).";
const DELETE =
  'Soft deletes the campaign with its behaviors, line items, creative groups and creatives: they answer not_found afterwards and ' +
  'their names are free again. Answers the campaign as deleted: its name ends with [DELETED AT <timestamp>] and deleted_at is set.';
const UPDATE =
  'Replaces name, status, starts_at and ends_at, which are all required; permalink, division_id, opt_in_required, ' +
  'prerequisite_campaign_ids and targeting change only when sent. Answers the campaign as stored.';

@ApiTags('management: campaigns')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management')
export class CampaignsController {
  constructor(private readonly campaigns: CampaignsService) {}

  @Post('campaigns')
  @ApiOperation({
    summary: 'Create a campaign',
    description:
      'Creates a campaign of the organization: status draft unless given, permalink generated from the name unless given (with -2, ' +
      `-3... when taken), division the root unless given. Answers 201 with the campaign. Errors: ${WRITE_PROBLEMS}`,
  })
  @ApiCreatedResponse({ type: CampaignResponse })
  @ApiErrors(...WRITE_ERRORS)
  async create(@CurrentTenant() tenant: Tenant, @Body() body: CreateCampaignBody): Promise<CampaignResponse> {
    return { status: 'ok', campaign: await this.campaigns.create(tenant, body.campaign) };
  }

  @Get('campaigns')
  @ApiOperation({
    summary: 'List campaigns',
    description:
      "A page of the organization's campaigns that are not deleted, oldest first, with the total count. Errors: validation (400) " +
      'when limit is not an integer from 1 to 100 or page not one from 1.',
  })
  @ApiOkResponse({ type: CampaignListResponse })
  @ApiErrors('validation')
  list(@CurrentTenant() tenant: Tenant, @Query() query: PageQuery): Promise<CampaignListResponse> {
    return this.campaigns.list(tenant, query);
  }

  @Get('campaigns/:campaign_id')
  @ApiOperation({ summary: 'Get a campaign', description: `Answers the campaign named by its id. Errors: ${NOT_FOUND}` })
  @CAMPAIGN_ID()
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors('not_found')
  async get(@CurrentTenant() tenant: Tenant, @Param('campaign_id', new IdPipe('campaign')) id: number): Promise<CampaignResponse> {
    return { status: 'ok', campaign: await this.campaigns.get(tenant, { id }) };
  }

  @Get('external/campaigns/:permalink')
  @ApiOperation({ summary: 'Get a campaign by permalink', description: `Answers the campaign named by its permalink. Errors: ${NOT_FOUND}` })
  @PERMALINK()
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors('not_found')
  async getByPermalink(@CurrentTenant() tenant: Tenant, @Param('permalink') permalink: string): Promise<CampaignResponse> {
    return { status: 'ok', campaign: await this.campaigns.get(tenant, { permalink }) };
  }

  @Get('campaigns/:campaign_id/navigation')
  @ApiOperation({
    summary: 'Get a campaign with its hierarchy',
    description:
      'Answers the campaign with its line items, their creative groups and their creatives (id, name, status and dates; deleted ones ' +
      `left out), each level oldest first. Errors: ${NOT_FOUND}`,
  })
  @CAMPAIGN_ID()
  @ApiOkResponse({ type: NavigationResponse })
  @ApiErrors('not_found')
  async navigation(@CurrentTenant() tenant: Tenant, @Param('campaign_id', new IdPipe('campaign')) id: number): Promise<NavigationResponse> {
    return { status: 'ok', campaign: await this.campaigns.navigation(tenant, { id }) };
  }

  @Put('campaigns/:campaign_id')
  @ApiOperation({ summary: 'Update a campaign', description: `${UPDATE} Errors: ${WRITE_PROBLEMS} ${NOT_FOUND}` })
  @CAMPAIGN_ID()
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors(...WRITE_ERRORS, 'not_found')
  async update(
    @CurrentTenant() tenant: Tenant,
    @Param('campaign_id', new IdPipe('campaign')) id: number,
    @Body() body: UpdateCampaignBody,
  ): Promise<CampaignResponse> {
    return { status: 'ok', campaign: await this.campaigns.update(tenant, { id }, body.campaign) };
  }

  @Put('external/campaigns/:permalink')
  @ApiOperation({ summary: 'Update a campaign by permalink', description: `${UPDATE} Errors: ${WRITE_PROBLEMS} ${NOT_FOUND}` })
  @PERMALINK()
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors(...WRITE_ERRORS, 'not_found')
  async updateByPermalink(
    @CurrentTenant() tenant: Tenant,
    @Param('permalink') permalink: string,
    @Body() body: UpdateCampaignBody,
  ): Promise<CampaignResponse> {
    return { status: 'ok', campaign: await this.campaigns.update(tenant, { permalink }, body.campaign) };
  }

  @Delete('campaigns/:campaign_id')
  @ApiOperation({ summary: 'Delete a campaign', description: `${DELETE} Errors: ${NOT_FOUND}` })
  @CAMPAIGN_ID()
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors('not_found')
  async remove(@CurrentTenant() tenant: Tenant, @Param('campaign_id', new IdPipe('campaign')) id: number): Promise<CampaignResponse> {
    return { status: 'ok', campaign: await this.campaigns.remove(tenant, { id }) };
  }

  @Delete('external/campaigns/:permalink')
  @ApiOperation({ summary: 'Delete a campaign by permalink', description: `${DELETE} Errors: ${NOT_FOUND}` })
  @PERMALINK()
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors('not_found')
  async removeByPermalink(@CurrentTenant() tenant: Tenant, @Param('permalink') permalink: string): Promise<CampaignResponse> {
    return { status: 'ok', campaign: await this.campaigns.remove(tenant, { permalink }) };
  }
}
