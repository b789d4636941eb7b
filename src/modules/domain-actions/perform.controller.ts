import { Body, Controller, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import type { Tenant } from '../../common/http/request-context.js';
import type { CustomerKey } from '../evaluation/index.js';
import type { CampaignKey } from '../events/index.js';
import { GoalProgressView, GroupProgressView } from '../events/index.js';
import { ApiExternalIdParam, ApiIdParam, ApiPermalinkParam, ApiUserIdParam } from '../../common/http/api-params.js';
import { PerformBody, PerformQuery, PerformResponse } from './dto/perform.dto.js';
import { PerformUseCase } from './perform.use-case.js';

const CAMPAIGN_ID = new IdPipe('campaign');
const ERRORS = ['missing_data', 'argument_error', 'validation', 'not_available', 'not_found', 'failed_to_perform', 'duplicate_transaction'] as const;
const DESCRIPTION =
  'Performs a domain action for one customer on one campaign, in one transaction with the customer locked. The built-in domain, ' +
  'complete_campaign (no args), completes every behavior of the campaign once for the customer (all goals earned; points, offers, tags, tier and notifications awarded, as events would) in one ' +
  'transaction, and marks the campaign completed for the customer. Targeting, division and prerequisites do not block it: the ' +
  "answer's qualified says whether the customer meets them. Extensions may register other domains, each with its own args " +
  '(GET .../management/extensions lists them with their schemas).\n\n' +
  'Answers the campaign (id, permalink, name, status, schedule, qualified) plus the sections the query asks for: sections[]=progress ' +
  '(completion, points earned, balance, tier), behaviors (each with the customer\'s progress, filtered by filters[]), offers (issued ' +
  'by this campaign to the customer) and redemptions (always empty); creatives[]=promotion|tile adds the campaign\'s active creatives.\n\n' +
  'An optional transaction_id makes it idempotent as on V1 (keys shared with V1 and V2 events of the api key): a repeat under the ' +
  'same api key answers 409 duplicate_transaction and stores nothing.\n\n' +
  'Errors: 400 missing_data (no domain), not_available (a domain not registered), validation (a malformed member, args the domain ' +
  'refuses, or a query value), ' +
  'argument_error (an unknown body member); 404 not_found (no such customer or campaign in the organization); 409 ' +
  'duplicate_transaction; 422 failed_to_perform when the campaign is not live, not started, over, already completed by the ' +
  'customer, or has nothing left to complete (every behavior at a cap), or when an extension\'s domain action refuses; 500 ' +
  'internal_error or 503 service_unavailable when an extension\'s action fails or times out. Nothing is stored on any error.';
const NO_CAMPAIGN = 'missing, deleted or of another organization → 404 not_found';

@ApiTags('perform')
@ApiKeyAuth()
@ApiExtraModels(GoalProgressView, GroupProgressView)
@Controller('priv/v2/apps/:api_key')
export class PerformController {
  constructor(private readonly performer: PerformUseCase) {}

  private run(req: Request, tenant: Tenant, customer: CustomerKey, campaign: CampaignKey, body: PerformBody, query: PerformQuery): Promise<PerformResponse> {
    return this.performer.execute({ tenant, customer, campaign, body, query, requestId: req.id });
  }

  @Post('users/:user_id/campaigns/:ad_campaign_id/perform')
  @HttpCode(200)
  @ApiOperation({ summary: 'Perform a domain action for a customer on a campaign', description: DESCRIPTION })
  @ApiUserIdParam()
  @ApiIdParam('ad_campaign_id', `Campaign id; ${NO_CAMPAIGN}`)
  @ApiOkResponse({ type: PerformResponse })
  @ApiErrors(...ERRORS)
  byUser(
    @Req() req: Request,
    @CurrentTenant() t: Tenant,
    @Param('user_id') userId: string,
    @Param('ad_campaign_id', CAMPAIGN_ID) id: number,
    @Body() body: PerformBody,
    @Query() q: PerformQuery,
  ): Promise<PerformResponse> {
    return this.run(req, t, { userId }, { id }, body, q);
  }

  @Post('users/:user_id/external/campaigns/:permalink/perform')
  @HttpCode(200)
  @ApiOperation({ summary: 'Perform a domain action for a customer on a campaign named by permalink', description: DESCRIPTION })
  @ApiUserIdParam()
  @ApiPermalinkParam(NO_CAMPAIGN)
  @ApiOkResponse({ type: PerformResponse })
  @ApiErrors(...ERRORS)
  byUserPermalink(
    @Req() req: Request,
    @CurrentTenant() t: Tenant,
    @Param('user_id') userId: string,
    @Param('permalink') permalink: string,
    @Body() body: PerformBody,
    @Query() q: PerformQuery,
  ): Promise<PerformResponse> {
    return this.run(req, t, { userId }, { permalink }, body, q);
  }

  @Post('external/users/:external_id/campaigns/:ad_campaign_id/perform')
  @HttpCode(200)
  @ApiOperation({ summary: 'Perform a domain action for a customer named by external_id on a campaign', description: DESCRIPTION })
  @ApiExternalIdParam()
  @ApiIdParam('ad_campaign_id', `Campaign id; ${NO_CAMPAIGN}`)
  @ApiOkResponse({ type: PerformResponse })
  @ApiErrors(...ERRORS)
  byExternal(
    @Req() req: Request,
    @CurrentTenant() t: Tenant,
    @Param('external_id') externalId: string,
    @Param('ad_campaign_id', CAMPAIGN_ID) id: number,
    @Body() body: PerformBody,
    @Query() q: PerformQuery,
  ): Promise<PerformResponse> {
    return this.run(req, t, { externalId }, { id }, body, q);
  }

  @Post('external/users/:external_id/external/campaigns/:permalink/perform')
  @HttpCode(200)
  @ApiOperation({ summary: 'Perform a domain action for a customer named by external_id on a campaign named by permalink', description: DESCRIPTION })
  @ApiExternalIdParam()
  @ApiPermalinkParam(NO_CAMPAIGN)
  @ApiOkResponse({ type: PerformResponse })
  @ApiErrors(...ERRORS)
  byExternalPermalink(
    @Req() req: Request,
    @CurrentTenant() t: Tenant,
    @Param('external_id') externalId: string,
    @Param('permalink') permalink: string,
    @Body() body: PerformBody,
    @Query() q: PerformQuery,
  ): Promise<PerformResponse> {
    return this.run(req, t, { externalId }, { permalink }, body, q);
  }
}
