import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../../common/http/id.pipe.js';
import { PageQuery } from '../../../common/http/pagination.dto.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { CreateOfferBody, OfferListResponse, OfferResponse, UpdateOfferBody } from './dto/offer.dto.js';
import { OffersService } from './offers.service.js';

const WRITE_ERRORS = ['missing_data', 'argument_error', 'validation'] as const;

@ApiTags('management: offers')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management/offers')
export class OffersController {
  constructor(private readonly offers: OffersService) {}

  @Post()
  @ApiOperation({ summary: 'Create an offer (points default 0; credited when the offer is awarded)' })
  @ApiCreatedResponse({ type: OfferResponse })
  @ApiErrors(...WRITE_ERRORS)
  async create(@CurrentTenant() tenant: Tenant, @Body() body: CreateOfferBody): Promise<OfferResponse> {
    return { status: 'ok', offer: await this.offers.create(tenant, body.offer) };
  }

  @Get()
  @ApiOperation({ summary: 'List offers, oldest first (limit 1..100, default 10; page from 1)' })
  @ApiOkResponse({ type: OfferListResponse })
  @ApiErrors('validation')
  list(@CurrentTenant() tenant: Tenant, @Query() query: PageQuery): Promise<OfferListResponse> {
    return this.offers.list(tenant, query);
  }

  @Get(':offer_id')
  @ApiOperation({ summary: 'Get an offer' })
  @ApiOkResponse({ type: OfferResponse })
  @ApiErrors('not_found')
  async get(@CurrentTenant() tenant: Tenant, @Param('offer_id', new IdPipe('offer')) id: number): Promise<OfferResponse> {
    return { status: 'ok', offer: await this.offers.get(tenant, id) };
  }

  @Put(':offer_id')
  @ApiOperation({ summary: 'Update an offer (partial: members left out keep their value)' })
  @ApiOkResponse({ type: OfferResponse })
  @ApiErrors(...WRITE_ERRORS, 'not_found')
  async update(
    @CurrentTenant() tenant: Tenant,
    @Param('offer_id', new IdPipe('offer')) id: number,
    @Body() body: UpdateOfferBody,
  ): Promise<OfferResponse> {
    return { status: 'ok', offer: await this.offers.update(tenant, id, body.offer) };
  }

  @Delete(':offer_id')
  @ApiOperation({ summary: 'Delete an offer (soft; the name gets a [DELETED AT ...] marker and is free again)' })
  @ApiOkResponse({ type: OfferResponse })
  @ApiErrors('not_found')
  async remove(@CurrentTenant() tenant: Tenant, @Param('offer_id', new IdPipe('offer')) id: number): Promise<OfferResponse> {
    return { status: 'ok', offer: await this.offers.remove(tenant, id) };
  }
}
