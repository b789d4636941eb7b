import { Body, Controller, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiIdParam } from '../../../common/http/api-params.js';
import { ApiKeyAuth } from '../../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../../common/http/id.pipe.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { CreateTierBody, TierListResponse, TierResponse, UpdateTierBody } from './dto/tier.dto.js';
import { TiersService } from './tiers.service.js';

const WRITE_ERRORS = ['missing_data', 'argument_error', 'validation'] as const;

const BODY_ERRORS =
  '400 missing_data when the `tier` wrapper or a required member is absent or null; 400 argument_error for a member not listed; ' +
  '400 validation for a wrong type or range, a blank name, or a name (case-insensitively) or min_points another live tier of the organization has';

const ApiTierIdParam = () => ApiIdParam('tier_id', "The tier's id (the `id` of POST .../management/tiers). An unknown, deleted or another organization's tier answers 404 not_found", 3);

@ApiTags('management: tiers')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management')
export class TiersController {
  constructor(private readonly tiers: TiersService) {}

  @Post('tiers')
  @ApiOperation({
    summary: 'Create a tier',
    description:
      'Creates a tier of the organization. A customer is in the highest tier whose min_points its lifetime points reach, or higher ' +
      'when a behavior\'s tier outcome ({"tier":{"name"}}) lifted it there; tiers are never lowered. ' +
      `Answers 201 with the tier. Errors: ${BODY_ERRORS}.`,
  })
  @ApiCreatedResponse({ type: TierResponse, description: 'The tier created' })
  @ApiErrors(...WRITE_ERRORS)
  async create(@CurrentTenant() tenant: Tenant, @Body() body: CreateTierBody): Promise<TierResponse> {
    return { status: 'ok', tier: await this.tiers.create(tenant, body.tier) };
  }

  @Get('tiers')
  @ApiOperation({
    summary: 'List tiers',
    description: "Every live tier of the organization, lowest first (by min_points, then id); deleted tiers are left out. Not paged.",
  })
  @ApiOkResponse({ type: TierListResponse, description: 'Every live tier, lowest first' })
  async list(@CurrentTenant() tenant: Tenant): Promise<TierListResponse> {
    return { status: 'ok', tiers: await this.tiers.list(tenant) };
  }

  @Get('tiers/:tier_id')
  @ApiOperation({
    summary: 'Get a tier',
    description: 'Answers one live tier of the organization; 404 not_found when there is none with that id.',
  })
  @ApiTierIdParam()
  @ApiOkResponse({ type: TierResponse, description: 'The tier' })
  @ApiErrors('not_found')
  async get(@CurrentTenant() tenant: Tenant, @Param('tier_id', new IdPipe('tier')) id: number): Promise<TierResponse> {
    return { status: 'ok', tier: await this.tiers.get(tenant, id) };
  }

  @Put('tiers/:tier_id')
  @ApiOperation({
    summary: 'Update a tier',
    description:
      'Partial: changes the name and/or min_points sent; a body that changes nothing writes nothing. Renaming a tier that a ' +
      `behavior's tier outcome names is refused (400 validation on tier.name: change those behaviors first). Errors: ${BODY_ERRORS}; ` +
      '404 not_found for an unknown or deleted tier.',
  })
  @ApiTierIdParam()
  @ApiOkResponse({ type: TierResponse, description: 'The tier after the update' })
  @ApiErrors(...WRITE_ERRORS, 'not_found')
  async update(@CurrentTenant() tenant: Tenant, @Param('tier_id', new IdPipe('tier')) id: number, @Body() body: UpdateTierBody): Promise<TierResponse> {
    return { status: 'ok', tier: await this.tiers.update(tenant, id, body.tier) };
  }

  @Delete('tiers/:tier_id')
  @ApiOperation({
    summary: 'Delete a tier',
    description:
      'Soft delete: the tier answers 404 afterwards, its name gets " [DELETED AT <ISO>]" appended and is free for a new tier. ' +
      'Customers in the tier keep it (answered with the marked name) until an event lifts them higher. Answers the deleted tier ' +
      "with deleted_at. 400 validation when a behavior's tier outcome names the tier; 404 not_found for an unknown or deleted tier.",
  })
  @ApiTierIdParam()
  @ApiOkResponse({ type: TierResponse, description: 'The deleted tier, with deleted_at' })
  @ApiErrors('validation', 'not_found')
  async remove(@CurrentTenant() tenant: Tenant, @Param('tier_id', new IdPipe('tier')) id: number): Promise<TierResponse> {
    return { status: 'ok', tier: await this.tiers.remove(tenant, id) };
  }
}
