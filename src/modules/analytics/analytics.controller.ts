import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { ApiIdParam } from '../../common/http/api-params.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import type { Tenant } from '../../common/http/request-context.js';
import { AnalyticsUseCase, DEFAULT_DAYS, MAX_YEARS } from './analytics.use-case.js';
import { AnalyticsQuery, AnalyticsResponse, BehaviorAnalyticsView } from './dto/analytics.dto.js';

const DESCRIPTION =
  "What the campaign did, for events whose occurred_at falls in the range (days of the organization's time zone): totals, a " +
  'series of every period (zeros included), each behavior, and the funnel of each goal. Counts are exact: participants are ' +
  'distinct customers; achievements are net of reversals, whose points are counted in points_reversed. Fresh as soon as an ' +
  `event is processed (V1 sync at once; V1 async and V2 once a worker has evaluated them). Default range: the ${DEFAULT_DAYS} days ending today. ` +
  `Errors: validation (400) naming from or to for a value that is not a date YYYY-MM-DD, to before from or a range of ${MAX_YEARS} years or more, ` +
  'naming granularity for anything but day, week or month; not_found (404) when the campaign does not exist, is deleted or belongs to another organization.';

@ApiTags('management: analytics')
@ApiKeyAuth()
@ApiExtraModels(BehaviorAnalyticsView)
@Controller('priv/v1/apps/:api_key/management')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsUseCase) {}

  @Get('campaigns/:campaign_id/analytics')
  @ApiOperation({ summary: "A campaign's analytics", description: DESCRIPTION })
  @ApiIdParam('campaign_id', 'The campaign id')
  @ApiOkResponse({ type: AnalyticsResponse })
  @ApiErrors('validation', 'not_found')
  async get(@CurrentTenant() tenant: Tenant, @Param('campaign_id', new IdPipe('campaign')) campaignId: number, @Query() query: AnalyticsQuery): Promise<AnalyticsResponse> {
    return { status: 'ok', analytics: await this.analytics.analytics(tenant, campaignId, query) };
  }
}
