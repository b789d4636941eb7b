import { Body, Controller, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../../common/http/id.pipe.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { CreateTierBody, TierListResponse, TierResponse, UpdateTierBody } from './dto/tier.dto.js';
import { TiersService } from './tiers.service.js';

const WRITE_ERRORS = ['missing_data', 'argument_error', 'validation'] as const;

@ApiTags('management: tiers')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management')
export class TiersController {
  constructor(private readonly tiers: TiersService) {}

  @Post('tiers')
  @ApiOperation({ summary: 'Create a tier (name unique case-insensitively, min_points unique, per organization)' })
  @ApiCreatedResponse({ type: TierResponse })
  @ApiErrors(...WRITE_ERRORS)
  async create(@CurrentTenant() tenant: Tenant, @Body() body: CreateTierBody): Promise<TierResponse> {
    return { status: 'ok', tier: await this.tiers.create(tenant, body.tier) };
  }

  @Get('tiers')
  @ApiOperation({ summary: "The organization's tiers, lowest first (by min_points, then id)" })
  @ApiOkResponse({ type: TierListResponse })
  async list(@CurrentTenant() tenant: Tenant): Promise<TierListResponse> {
    return { status: 'ok', tiers: await this.tiers.list(tenant) };
  }

  @Get('tiers/:tier_id')
  @ApiOperation({ summary: 'Get a tier' })
  @ApiOkResponse({ type: TierResponse })
  @ApiErrors('not_found')
  async get(@CurrentTenant() tenant: Tenant, @Param('tier_id', new IdPipe('tier')) id: number): Promise<TierResponse> {
    return { status: 'ok', tier: await this.tiers.get(tenant, id) };
  }

  @Put('tiers/:tier_id')
  @ApiOperation({ summary: 'Update a tier (partial); a tier named by a tier outcome cannot be renamed' })
  @ApiOkResponse({ type: TierResponse })
  @ApiErrors(...WRITE_ERRORS, 'not_found')
  async update(@CurrentTenant() tenant: Tenant, @Param('tier_id', new IdPipe('tier')) id: number, @Body() body: UpdateTierBody): Promise<TierResponse> {
    return { status: 'ok', tier: await this.tiers.update(tenant, id, body.tier) };
  }

  @Delete('tiers/:tier_id')
  @ApiOperation({ summary: 'Delete a tier (soft; the name gets a [DELETED AT ...] marker; customers keep it until an event lifts them)' })
  @ApiOkResponse({ type: TierResponse })
  @ApiErrors('validation', 'not_found')
  async remove(@CurrentTenant() tenant: Tenant, @Param('tier_id', new IdPipe('tier')) id: number): Promise<TierResponse> {
    return { status: 'ok', tier: await this.tiers.remove(tenant, id) };
  }
}
