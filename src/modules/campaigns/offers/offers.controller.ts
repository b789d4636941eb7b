import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../../common/http/id.pipe.js';
import { PageQuery } from '../../../common/http/pagination.dto.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { CreateOfferBody, OfferListResponse, OfferResponse, UpdateOfferBody } from './dto/offer.dto.js';
import { ApiIdParam } from '../../../common/http/api-params.js';
import { OffersService } from './offers.service.js';

const WRITE_ERRORS = ['missing_data', 'argument_error', 'validation'] as const;

const OFFER_ID = () => ApiIdParam('offer_id', 'The offer id');
const NOT_FOUND = 'not_found (404) when the offer does not exist, is deleted or belongs to another organization.';
const WRITE_PROBLEMS =
  'missing_data (400) when the offer wrapper or its name is absent; argument_error (400) for members it does not know; validation ' +
  '(400) for an invalid value, or a name another offer of the organization uses (any case).';

@ApiTags('management: offers')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management/offers')
export class OffersController {
  constructor(private readonly offers: OffersService) {}

  @Post()
  @ApiOperation({
    summary: 'Create an offer',
    description:
      'Creates an offer of the organization, which behavior outcomes ({"deal":{"id":...}}) award; its points (default 0) are ' +
      `credited when it is awarded. Answers 201 with the offer. Errors: ${WRITE_PROBLEMS}`,
  })
  @ApiCreatedResponse({ type: OfferResponse })
  @ApiErrors(...WRITE_ERRORS)
  async create(@CurrentTenant() tenant: Tenant, @Body() body: CreateOfferBody): Promise<OfferResponse> {
    return { status: 'ok', offer: await this.offers.create(tenant, body.offer) };
  }

  @Get()
  @ApiOperation({
    summary: 'List offers',
    description:
      "A page of the organization's offers that are not deleted, oldest first, with the total count. Errors: validation (400) when " +
      'limit is not an integer from 1 to 100 or page not one from 1.',
  })
  @ApiOkResponse({ type: OfferListResponse })
  @ApiErrors('validation')
  list(@CurrentTenant() tenant: Tenant, @Query() query: PageQuery): Promise<OfferListResponse> {
    return this.offers.list(tenant, query);
  }

  @Get(':offer_id')
  @ApiOperation({ summary: 'Get an offer', description: `Answers the offer named by its id. Errors: ${NOT_FOUND}` })
  @OFFER_ID()
  @ApiOkResponse({ type: OfferResponse })
  @ApiErrors('not_found')
  async get(@CurrentTenant() tenant: Tenant, @Param('offer_id', new IdPipe('offer')) id: number): Promise<OfferResponse> {
    return { status: 'ok', offer: await this.offers.get(tenant, id) };
  }

  @Put(':offer_id')
  @ApiOperation({
    summary: 'Update an offer (partial)',
    description:
      'Changes the members sent (description null clears it); the others keep their values. Answers the offer as stored. ' +
      `Errors: ${WRITE_PROBLEMS} ${NOT_FOUND}`,
  })
  @OFFER_ID()
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
  @ApiOperation({
    summary: 'Delete an offer',
    description:
      'Soft deletes the offer: it is no longer awarded and answers not_found afterwards, and its name is free again. Answers the ' +
      `offer as deleted: its name ends with [DELETED AT <timestamp>] and deleted_at is set. Errors: ${NOT_FOUND}`,
  })
  @OFFER_ID()
  @ApiOkResponse({ type: OfferResponse })
  @ApiErrors('not_found')
  async remove(@CurrentTenant() tenant: Tenant, @Param('offer_id', new IdPipe('offer')) id: number): Promise<OfferResponse> {
    return { status: 'ok', offer: await this.offers.remove(tenant, id) };
  }
}
