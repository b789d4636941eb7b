import { Body, Controller, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../../common/http/id.pipe.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { CreateDivisionBody, DivisionListResponse, DivisionResponse, UpdateDivisionBody } from './dto/division.dto.js';
import { DivisionsService } from './divisions.service.js';

const WRITE_ERRORS = ['missing_data', 'argument_error', 'validation'] as const;

@ApiTags('management: divisions')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management')
export class DivisionsController {
  constructor(private readonly divisions: DivisionsService) {}

  @Post('divisions')
  @ApiOperation({ summary: 'Create a division under a live division of the organization (the root exists from the start)' })
  @ApiCreatedResponse({ type: DivisionResponse })
  @ApiErrors(...WRITE_ERRORS)
  async create(@CurrentTenant() tenant: Tenant, @Body() body: CreateDivisionBody): Promise<DivisionResponse> {
    return { status: 'ok', division: await this.divisions.create(tenant, body.division) };
  }

  @Get('divisions')
  @ApiOperation({ summary: "The organization's live divisions in tree order: depth first from the root, siblings by id" })
  @ApiOkResponse({ type: DivisionListResponse })
  async list(@CurrentTenant() tenant: Tenant): Promise<DivisionListResponse> {
    return { status: 'ok', divisions: await this.divisions.list(tenant) };
  }

  @Get('divisions/:division_id')
  @ApiOperation({ summary: 'Get a division' })
  @ApiOkResponse({ type: DivisionResponse })
  @ApiErrors('not_found')
  async get(@CurrentTenant() tenant: Tenant, @Param('division_id', new IdPipe('division')) id: number): Promise<DivisionResponse> {
    return { status: 'ok', division: await this.divisions.get(tenant, id) };
  }

  @Put('divisions/:division_id')
  @ApiOperation({ summary: 'Rename a division, or move it with its subtree under another division (partial; the root is never moved)' })
  @ApiOkResponse({ type: DivisionResponse })
  @ApiErrors(...WRITE_ERRORS, 'not_found')
  async update(
    @CurrentTenant() tenant: Tenant,
    @Param('division_id', new IdPipe('division')) id: number,
    @Body() body: UpdateDivisionBody,
  ): Promise<DivisionResponse> {
    return { status: 'ok', division: await this.divisions.update(tenant, id, body.division) };
  }

  @Delete('divisions/:division_id')
  @ApiOperation({ summary: 'Delete a leaf division that no customer and no campaign uses (soft; the name gets a [DELETED AT ...] marker)' })
  @ApiOkResponse({ type: DivisionResponse })
  @ApiErrors('validation', 'not_found')
  async remove(@CurrentTenant() tenant: Tenant, @Param('division_id', new IdPipe('division')) id: number): Promise<DivisionResponse> {
    return { status: 'ok', division: await this.divisions.remove(tenant, id) };
  }
}
