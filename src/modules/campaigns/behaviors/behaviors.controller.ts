import { Body, Controller, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../../common/http/id.pipe.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { ApiIdParam } from '../../../common/http/api-params.js';
import { BehaviorsService } from './behaviors.service.js';
import { BatchBehaviorsBody, UpdateBehaviorBody } from './dto/behavior.dto.js';
import { BehaviorBatchError, BehaviorListResponse, BehaviorResponse, BehaviorUpdateError } from './dto/behavior-view.dto.js';

const BEHAVIOR_ID = () => ApiIdParam('behavior_id', 'The behavior id');
const CAMPAIGN_ID = () => ApiIdParam('campaign_id', 'The campaign id');
/** The 400 answers of a write: the error envelope, with the submitted behaviors and their errors beside it on validation. */
const BAD_REQUEST = 'missing_data, argument_error, validation';
const NOT_FOUND = 'not_found (404) when the behavior does not exist, is deleted or belongs to another organization.';
/** Contract §18's limits on a batch as a whole, answered as validation (400) without `behaviors`. */
const BATCH_LIMITS =
  'A batch that would take the campaign past LIMIT_BEHAVIORS_PER_CAMPAIGN behaviors (default 200), or, on a live campaign, the ' +
  "organization's live campaigns past LIMIT_LIVE_GOALS_PER_ORGANIZATION goals (default 5,000) is validation (400) with a message " +
  'naming the limit, its value and its setting, and the field `behaviors`; nothing is stored.';
const WRAPPER_PROBLEMS = 'missing_data (400) when the wrapper is absent; argument_error (400) for other top-level members;';

@ApiTags('management: behaviors')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management')
export class BehaviorsController {
  constructor(private readonly behaviors: BehaviorsService) {}

  @Post('campaigns/:campaign_id/behaviors/_batch')
  @ApiOperation({
    summary: 'Create behaviors of a campaign',
    description:
      'Creates 1 to 100 behaviors of the campaign in one transaction: all are stored, or none. Answers 201 with the behaviors as ' +
      `stored, in the order sent, each goal and outcome with its new id. Errors: ${WRAPPER_PROBLEMS} validation (400) for a ` +
      'batch that is not an array of 1 to 100 objects, and for invalid behaviors (a member of the wrong type or range, an unknown ' +
      "member, a name another behavior uses, an outcome naming an offer, creative or tier that is not the organization's or the " +
      "campaign's, a name that is a prototype key, a limit of one behavior passed): then the answer also carries, beside errors, " +
      '`behaviors`: every submitted behavior with its own `errors` (a dotted field → message; empty for a valid one), so every ' +
      `problem shows at once. ${BATCH_LIMITS} not_found (404) when the campaign does not exist, is deleted or belongs to another ` +
      'organization.',
  })
  @CAMPAIGN_ID()
  @ApiCreatedResponse({ type: BehaviorListResponse })
  @ApiBadRequestResponse({ type: BehaviorBatchError, description: BAD_REQUEST })
  @ApiErrors('not_found')
  async createBatch(
    @CurrentTenant() tenant: Tenant,
    @Param('campaign_id', new IdPipe('campaign')) campaignId: number,
    @Body() body: BatchBehaviorsBody,
  ): Promise<BehaviorListResponse> {
    return { status: 'ok', behaviors: await this.behaviors.createBatch(tenant, campaignId, body.behaviors) };
  }

  @Get('campaigns/:campaign_id/behaviors')
  @ApiOperation({
    summary: "List a campaign's behaviors",
    description:
      "Answers the campaign's behaviors that are not deleted, oldest first. Errors: not_found (404) when the campaign does not exist, " +
      'is deleted or belongs to another organization.',
  })
  @CAMPAIGN_ID()
  @ApiOkResponse({ type: BehaviorListResponse })
  @ApiErrors('not_found')
  async list(@CurrentTenant() tenant: Tenant, @Param('campaign_id', new IdPipe('campaign')) campaignId: number): Promise<BehaviorListResponse> {
    return { status: 'ok', behaviors: await this.behaviors.list(tenant, campaignId) };
  }

  @Get('behaviors/:behavior_id')
  @ApiOperation({ summary: 'Get a behavior', description: `Answers the behavior named by its id. Errors: ${NOT_FOUND}` })
  @BEHAVIOR_ID()
  @ApiOkResponse({ type: BehaviorResponse })
  @ApiErrors('not_found')
  async get(@CurrentTenant() tenant: Tenant, @Param('behavior_id', new IdPipe('behavior')) id: number): Promise<BehaviorResponse> {
    return { status: 'ok', behavior: await this.behaviors.get(tenant, id) };
  }

  @Put('behaviors/:behavior_id')
  @ApiOperation({
    summary: 'Update a behavior (partial)',
    description:
      'Each top-level member sent (name, tags, points, data, goal_groups, outcome_config) replaces the stored one whole (data and ' +
      'goal_groups are not merged member by member); members absent keep their values, so {"behavior":{"points":3}} changes the ' +
      'points only. The result is checked as a whole behavior, as in a batch. Goals keep their id, and customers their progress, ' +
      'by name; outcomes keep theirs when they award the same thing. Answers the behavior as stored. Errors: ' +
      `${WRAPPER_PROBLEMS} validation (400) for an invalid behavior, answered with, beside errors, \`behavior\`: the members sent ` +
      `with the behavior's \`errors\` (a dotted field → message); nothing is changed. An update adding goals to a live campaign past ` +
      `LIMIT_LIVE_GOALS_PER_ORGANIZATION is validation (400) on behavior.goal_groups. ${NOT_FOUND}`,
  })
  @BEHAVIOR_ID()
  @ApiOkResponse({ type: BehaviorResponse })
  @ApiBadRequestResponse({ type: BehaviorUpdateError, description: BAD_REQUEST })
  @ApiErrors('not_found')
  async update(
    @CurrentTenant() tenant: Tenant,
    @Param('behavior_id', new IdPipe('behavior')) id: number,
    @Body() body: UpdateBehaviorBody,
  ): Promise<BehaviorResponse> {
    return { status: 'ok', behavior: await this.behaviors.update(tenant, id, body.behavior) };
  }

  @Delete('behaviors/:behavior_id')
  @ApiOperation({
    summary: 'Delete a behavior',
    description:
      'Soft deletes the behavior: it stops counting events and answers not_found afterwards, and its name is free again. Answers ' +
      `the behavior as deleted: its name ends with [DELETED AT <timestamp>] and deleted_at is set. Errors: ${NOT_FOUND}`,
  })
  @BEHAVIOR_ID()
  @ApiOkResponse({ type: BehaviorResponse })
  @ApiErrors('not_found')
  async remove(@CurrentTenant() tenant: Tenant, @Param('behavior_id', new IdPipe('behavior')) id: number): Promise<BehaviorResponse> {
    return { status: 'ok', behavior: await this.behaviors.remove(tenant, id) };
  }
}
