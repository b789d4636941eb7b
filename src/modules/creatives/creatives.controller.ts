import { Body, Controller, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import type { Tenant } from '../../common/http/request-context.js';
import { CreativesService } from './creatives.service.js';
import { CreateCreativeBody, CreativeListResponse, UpdateCreativeBody } from './dto/creative.dto.js';

const WRITE_ERRORS = ['missing_data', 'argument_error', 'validation', 'not_found'] as const;

@ApiTags('management: creatives')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management')
export class CreativesController {
  constructor(private readonly creatives: CreativesService) {}

  @Post('creative_groups/:creative_group_id/creatives')
  @ApiOperation({ summary: 'Create the creative of a creative group (at most one that is not deleted per group)' })
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
  @ApiOperation({ summary: "A creative group's creatives" })
  @ApiOkResponse({ type: CreativeListResponse })
  @ApiErrors('not_found')
  async list(
    @CurrentTenant() tenant: Tenant,
    @Param('creative_group_id', new IdPipe('creative group')) groupId: number,
  ): Promise<CreativeListResponse> {
    return { status: 'ok', creatives: await this.creatives.list(tenant, groupId) };
  }

  @Get('creatives/:creative_id')
  @ApiOperation({ summary: 'Get a creative' })
  @ApiOkResponse({ type: CreativeListResponse })
  @ApiErrors('not_found')
  async get(@CurrentTenant() tenant: Tenant, @Param('creative_id', new IdPipe('creative')) id: number): Promise<CreativeListResponse> {
    return { status: 'ok', creatives: [await this.creatives.get(tenant, id)] };
  }

  @Put('creatives/:creative_id')
  @ApiOperation({ summary: 'Update a creative (partial; issue_audience_csv, when sent, replaces the stored one)' })
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
  @ApiOperation({ summary: 'Delete a creative (soft; the name gets a [DELETED AT ...] marker)' })
  @ApiOkResponse({ type: CreativeListResponse })
  @ApiErrors('not_found')
  async remove(@CurrentTenant() tenant: Tenant, @Param('creative_id', new IdPipe('creative')) id: number): Promise<CreativeListResponse> {
    return { status: 'ok', creatives: [await this.creatives.remove(tenant, id)] };
  }
}
