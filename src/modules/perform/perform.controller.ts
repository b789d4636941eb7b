import { Body, Controller, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import type { Tenant } from '../../common/http/request-context.js';
import type { CustomerKey } from '../evaluation/evaluation.repository.js';
import type { CampaignKey } from '../events/scope.js';
import { PerformBody, PerformQuery, PerformResponse } from './dto/perform.dto.js';
import { PerformUseCase } from './perform.use-case.js';

const CAMPAIGN_ID = new IdPipe('campaign');
const ERRORS = ['missing_data', 'argument_error', 'validation', 'not_available', 'not_found', 'failed_to_perform', 'duplicate_transaction'] as const;
const DESCRIPTION =
  'domain complete_campaign completes every behavior of the campaign once for the customer (all goals earned; points, offers, tags, ' +
  'tier and notifications awarded) in one transaction (contract §12, docs/perform.md). 422 failed_to_perform when the campaign is not ' +
  'live, not started, over, already completed by the customer, or has nothing left to complete. An optional transaction_id makes it ' +
  'idempotent as on V1: a repeat under the same api key answers 409 duplicate_transaction and stores nothing.';

@ApiTags('perform')
@ApiKeyAuth()
@Controller('priv/v2/apps/:api_key')
export class PerformController {
  constructor(private readonly performer: PerformUseCase) {}

  private run(req: Request, tenant: Tenant, customer: CustomerKey, campaign: CampaignKey, body: PerformBody, query: PerformQuery): Promise<PerformResponse> {
    return this.performer.execute({ tenant, customer, campaign, body, query, requestId: req.id });
  }

  @Post('users/:user_id/campaigns/:ad_campaign_id/perform')
  @HttpCode(200)
  @ApiOperation({ summary: 'Perform a domain action for a customer on a campaign', description: DESCRIPTION })
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
