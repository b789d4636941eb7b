import { Body, Controller, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../../common/http/id.pipe.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { BehaviorsService } from './behaviors.service.js';
import { BatchBehaviorsBody, BehaviorListResponse, BehaviorResponse, UpdateBehaviorBody } from './dto/behavior.dto.js';

const WRITE_ERRORS = ['missing_data', 'argument_error', 'validation', 'not_found'] as const;
const ERRORS_BESIDE =
  'A validation error also answers, beside `errors`, each submitted behavior with its own `errors` object (a dotted field → message; ' +
  'empty for a valid behavior), so every problem shows at once.';

@ApiTags('management: behaviors')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management')
export class BehaviorsController {
  constructor(private readonly behaviors: BehaviorsService) {}

  @Post('campaigns/:campaign_id/behaviors/_batch')
  @ApiOperation({
    summary: 'Create 1 to 100 behaviors of a campaign in one transaction: all are stored, or none',
    description: `${ERRORS_BESIDE} The body is answered as \`{"status":"error","errors":{...},"behaviors":[...]}\`.`,
  })
  @ApiCreatedResponse({ type: BehaviorListResponse })
  @ApiErrors(...WRITE_ERRORS)
  async createBatch(
    @CurrentTenant() tenant: Tenant,
    @Param('campaign_id', new IdPipe('campaign')) campaignId: number,
    @Body() body: BatchBehaviorsBody,
  ): Promise<BehaviorListResponse> {
    return { status: 'ok', behaviors: await this.behaviors.createBatch(tenant, campaignId, body.behaviors) };
  }

  @Get('campaigns/:campaign_id/behaviors')
  @ApiOperation({ summary: "The campaign's behaviors, oldest first" })
  @ApiOkResponse({ type: BehaviorListResponse })
  @ApiErrors('not_found')
  async list(@CurrentTenant() tenant: Tenant, @Param('campaign_id', new IdPipe('campaign')) campaignId: number): Promise<BehaviorListResponse> {
    return { status: 'ok', behaviors: await this.behaviors.list(tenant, campaignId) };
  }

  @Get('behaviors/:behavior_id')
  @ApiOperation({ summary: 'Get a behavior' })
  @ApiOkResponse({ type: BehaviorResponse })
  @ApiErrors('not_found')
  async get(@CurrentTenant() tenant: Tenant, @Param('behavior_id', new IdPipe('behavior')) id: number): Promise<BehaviorResponse> {
    return { status: 'ok', behavior: await this.behaviors.get(tenant, id) };
  }

  @Put('behaviors/:behavior_id')
  @ApiOperation({
    summary: 'Update a behavior (partial): members sent replace the stored ones, members absent keep their values',
    description:
      'Each top-level member sent (name, tags, points, data, goal_groups, outcome_config) replaces the stored one whole (data and ' +
      'goal_groups are not merged member by member); members absent keep their values, so {"behavior":{"points":3}} changes the ' +
      'points only. The result is checked as a whole behavior, as in a batch. Goals keep their id, and customers their progress, ' +
      `by name; outcomes keep theirs when they award the same thing. ${ERRORS_BESIDE} The body is answered as ` +
      '`{"status":"error","errors":{...},"behavior":{...}}`.',
  })
  @ApiOkResponse({ type: BehaviorResponse })
  @ApiErrors(...WRITE_ERRORS)
  async update(
    @CurrentTenant() tenant: Tenant,
    @Param('behavior_id', new IdPipe('behavior')) id: number,
    @Body() body: UpdateBehaviorBody,
  ): Promise<BehaviorResponse> {
    return { status: 'ok', behavior: await this.behaviors.update(tenant, id, body.behavior) };
  }

  @Delete('behaviors/:behavior_id')
  @ApiOperation({ summary: 'Delete a behavior (soft; the name gets a [DELETED AT ...] marker and is free again)' })
  @ApiOkResponse({ type: BehaviorResponse })
  @ApiErrors('not_found')
  async remove(@CurrentTenant() tenant: Tenant, @Param('behavior_id', new IdPipe('behavior')) id: number): Promise<BehaviorResponse> {
    return { status: 'ok', behavior: await this.behaviors.remove(tenant, id) };
  }
}
