import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import { PageQuery } from '../../common/http/pagination.dto.js';
import type { Tenant } from '../../common/http/request-context.js';
import { CampaignsService } from './campaigns.service.js';
import {
  CampaignListResponse,
  CampaignResponse,
  CreateCampaignBody,
  NavigationResponse,
  UpdateCampaignBody,
} from './dto/campaign.dto.js';

const WRITE_ERRORS = ['missing_data', 'argument_error', 'validation'] as const;

@ApiTags('management: campaigns')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management')
export class CampaignsController {
  constructor(private readonly campaigns: CampaignsService) {}

  @Post('campaigns')
  @ApiOperation({ summary: 'Create a campaign (status draft unless given; permalink generated from the name unless given)' })
  @ApiCreatedResponse({ type: CampaignResponse })
  @ApiErrors(...WRITE_ERRORS)
  async create(@CurrentTenant() tenant: Tenant, @Body() body: CreateCampaignBody): Promise<CampaignResponse> {
    return { status: 'ok', campaign: await this.campaigns.create(tenant, body.campaign) };
  }

  @Get('campaigns')
  @ApiOperation({ summary: 'List campaigns, oldest first (limit 1..100, default 10; page from 1)' })
  @ApiOkResponse({ type: CampaignListResponse })
  @ApiErrors('validation')
  list(@CurrentTenant() tenant: Tenant, @Query() query: PageQuery): Promise<CampaignListResponse> {
    return this.campaigns.list(tenant, query);
  }

  @Get('campaigns/:campaign_id')
  @ApiOperation({ summary: 'Get a campaign' })
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors('not_found')
  async get(@CurrentTenant() tenant: Tenant, @Param('campaign_id', new IdPipe('campaign')) id: number): Promise<CampaignResponse> {
    return { status: 'ok', campaign: await this.campaigns.get(tenant, { id }) };
  }

  @Get('external/campaigns/:permalink')
  @ApiOperation({ summary: 'Get a campaign by permalink' })
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors('not_found')
  async getByPermalink(@CurrentTenant() tenant: Tenant, @Param('permalink') permalink: string): Promise<CampaignResponse> {
    return { status: 'ok', campaign: await this.campaigns.get(tenant, { permalink }) };
  }

  @Get('campaigns/:campaign_id/navigation')
  @ApiOperation({ summary: 'The campaign with its hierarchy: line items → creative groups → creatives' })
  @ApiOkResponse({ type: NavigationResponse })
  @ApiErrors('not_found')
  async navigation(@CurrentTenant() tenant: Tenant, @Param('campaign_id', new IdPipe('campaign')) id: number): Promise<NavigationResponse> {
    return { status: 'ok', campaign: await this.campaigns.navigation(tenant, { id }) };
  }

  @Put('campaigns/:campaign_id')
  @ApiOperation({ summary: 'Update a campaign (name, status, starts_at and ends_at required)' })
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
  @ApiOperation({ summary: 'Update a campaign by permalink (name, status, starts_at and ends_at required)' })
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
  @ApiOperation({ summary: 'Delete a campaign and everything under it (soft; the name gets a [DELETED AT ...] marker)' })
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors('not_found')
  async remove(@CurrentTenant() tenant: Tenant, @Param('campaign_id', new IdPipe('campaign')) id: number): Promise<CampaignResponse> {
    return { status: 'ok', campaign: await this.campaigns.remove(tenant, { id }) };
  }

  @Delete('external/campaigns/:permalink')
  @ApiOperation({ summary: 'Delete a campaign by permalink (soft)' })
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors('not_found')
  async removeByPermalink(@CurrentTenant() tenant: Tenant, @Param('permalink') permalink: string): Promise<CampaignResponse> {
    return { status: 'ok', campaign: await this.campaigns.remove(tenant, { permalink }) };
  }
}
