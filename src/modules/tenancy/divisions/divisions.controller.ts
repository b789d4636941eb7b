import { Body, Controller, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiIdParam } from '../../../common/http/api-params.js';
import { ApiKeyAuth } from '../../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../../common/http/id.pipe.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { CreateDivisionBody, DivisionListResponse, DivisionResponse, UpdateDivisionBody } from './dto/division.dto.js';
import { DivisionsService } from './divisions.service.js';

const WRITE_ERRORS = ['missing_data', 'argument_error', 'validation'] as const;

const BODY_ERRORS =
  '400 missing_data when the `division` wrapper or a required member is absent or null; 400 argument_error for a member not ' +
  'listed; 400 validation for a wrong type or range, a blank name, a name (case-insensitively) another live division of the ' +
  'organization has, or a parent_id that is not a live division of the organization';

const ApiDivisionIdParam = () => ApiIdParam('division_id', "The division's id. An unknown, deleted or another organization's division answers 404 not_found", 7);

@ApiTags('management: divisions')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management')
export class DivisionsController {
  constructor(private readonly divisions: DivisionsService) {}

  @Post('divisions')
  @ApiOperation({
    summary: 'Create a division',
    description:
      "Creates a division under a live division of the organization (parent_id). Divisions form a tree whose root exists from the " +
      'bootstrap (root_division_id); customers and campaigns belong to one, and with multi-org on an event reaches the campaigns of its ' +
      `division and of the division's ancestors. Answers 201 with the division and its ancestor_ids. Errors: ${BODY_ERRORS}.`,
  })
  @ApiCreatedResponse({ type: DivisionResponse, description: 'The division created' })
  @ApiErrors(...WRITE_ERRORS)
  async create(@CurrentTenant() tenant: Tenant, @Body() body: CreateDivisionBody): Promise<DivisionResponse> {
    return { status: 'ok', division: await this.divisions.create(tenant, body.division) };
  }

  @Get('divisions')
  @ApiOperation({
    summary: 'List divisions',
    description: "Every live division of the organization in tree order: depth first from the root, siblings by id. Not paged.",
  })
  @ApiOkResponse({ type: DivisionListResponse, description: 'Every live division, in tree order' })
  async list(@CurrentTenant() tenant: Tenant): Promise<DivisionListResponse> {
    return { status: 'ok', divisions: await this.divisions.list(tenant) };
  }

  @Get('divisions/:division_id')
  @ApiOperation({
    summary: 'Get a division',
    description: 'Answers one live division of the organization; 404 not_found when there is none with that id.',
  })
  @ApiDivisionIdParam()
  @ApiOkResponse({ type: DivisionResponse, description: 'The division' })
  @ApiErrors('not_found')
  async get(@CurrentTenant() tenant: Tenant, @Param('division_id', new IdPipe('division')) id: number): Promise<DivisionResponse> {
    return { status: 'ok', division: await this.divisions.get(tenant, id) };
  }

  @Put('divisions/:division_id')
  @ApiOperation({
    summary: 'Update a division',
    description:
      'Partial: renames the division and/or moves it, with its whole subtree, under another live division (parent_id); every ' +
      'ancestor_ids below it is rewritten. A body that changes nothing writes nothing. The root can be renamed but never moved, and ' +
      `a division cannot move under itself or its subtree (400 validation). Errors: ${BODY_ERRORS}; 404 not_found for an unknown or deleted division.`,
  })
  @ApiDivisionIdParam()
  @ApiOkResponse({ type: DivisionResponse, description: 'The division after the update' })
  @ApiErrors(...WRITE_ERRORS, 'not_found')
  async update(
    @CurrentTenant() tenant: Tenant,
    @Param('division_id', new IdPipe('division')) id: number,
    @Body() body: UpdateDivisionBody,
  ): Promise<DivisionResponse> {
    return { status: 'ok', division: await this.divisions.update(tenant, id, body.division) };
  }

  @Delete('divisions/:division_id')
  @ApiOperation({
    summary: 'Delete a division',
    description:
      'Soft delete of a leaf division that no customer and no campaign (deleted ones aside) uses: it answers 404 afterwards, its name gets ' +
      '" [DELETED AT <ISO>]" appended and is free again. Answers the deleted division with deleted_at. 400 validation for the root ' +
      'division, or while the division has child divisions, customers or campaigns (the message counts them); 404 not_found for an ' +
      'unknown or deleted division.',
  })
  @ApiDivisionIdParam()
  @ApiOkResponse({ type: DivisionResponse, description: 'The deleted division, with deleted_at' })
  @ApiErrors('validation', 'not_found')
  async remove(@CurrentTenant() tenant: Tenant, @Param('division_id', new IdPipe('division')) id: number): Promise<DivisionResponse> {
    return { status: 'ok', division: await this.divisions.remove(tenant, id) };
  }
}
