import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { AppError } from '../../common/errors/app-error.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import type { Tenant } from '../../common/http/request-context.js';
import { RetrievalQuery, RetrievalResponse, V1EventBody, V1EventQuery, V1EventResponse } from './dto/v1-event.dto.js';
import type { CustomerKey } from '../evaluation/evaluation.repository.js';
import { RetrievalUseCase } from './retrieval.use-case.js';
import type { CampaignKey } from './scope.js';
import { V1Answer, V1EventsUseCase } from './v1-events.use-case.js';

/** A V1 path's campaign id that cannot name a campaign is the same answer as one naming no live campaign. */
const CAMPAIGN_ID = new IdPipe('campaign', () => new AppError('No_active_campaign_found', 'no live campaign matches the request'));
const SEND_ERRORS = ['missing_event_data', 'argument_error', 'validation', 'not_found', 'No_active_campaign_found', 'duplicate_transaction'] as const;
const SEND_DESCRIPTION =
  'Evaluates the customer\'s events now, in one transaction, and answers their progress: behaviors (by name, with goals and ' +
  'this request\'s deltas), deltas, points, notifications, qualified and state. The customer must exist (else 404 not_found). ' +
  'Two different qualifys: the body member "qualify": true opts the customer in to opt-in campaigns and processes the events; ' +
  'the query qualify=true is a dry eligibility check that answers {"status","qualified","state","notifications"} and writes ' +
  'nothing. async=true stores and queues the events for a worker and answers {"status":"ok"} (explain=true is then ignored); ' +
  'explain=true adds why each campaign, behavior and goal did or did not progress; read_only: true (body) evaluates and ' +
  'stores nothing. A completion shows in deltas as achieved 1 and reset true: the goals restart at 0 for the next cycle.';

@ApiTags('events v1')
@ApiKeyAuth()
@ApiExtraModels(V1EventResponse)
@Controller('priv/v1/apps/:api_key')
export class V1EventsController {
  constructor(
    private readonly events: V1EventsUseCase,
    private readonly retrieval: RetrievalUseCase,
  ) {}

  private send(req: Request, tenant: Tenant, customer: CustomerKey, campaign: CampaignKey | null, body: V1EventBody, query: V1EventQuery) {
    return this.events.execute({
      tenant,
      customer,
      campaign,
      body,
      checkOnly: query.qualify === 'true',
      async: query.async === 'true',
      explain: query.explain === 'true',
      requestId: req.id,
    });
  }

  @Post('users/:user_id/events')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send events for a customer, to every live campaign', description: SEND_DESCRIPTION })
  @ApiOkResponse({ type: V1EventResponse })
  @ApiErrors(...SEND_ERRORS)
  byUser(@Req() req: Request, @CurrentTenant() t: Tenant, @Param('user_id') userId: string, @Body() body: V1EventBody, @Query() q: V1EventQuery): Promise<V1Answer> {
    return this.send(req, t, { userId }, null, body, q);
  }

  @Post('external/users/:external_id/events')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send events for a customer named by external_id, to every live campaign', description: SEND_DESCRIPTION })
  @ApiOkResponse({ type: V1EventResponse })
  @ApiErrors(...SEND_ERRORS)
  byExternal(@Req() req: Request, @CurrentTenant() t: Tenant, @Param('external_id') externalId: string, @Body() body: V1EventBody, @Query() q: V1EventQuery): Promise<V1Answer> {
    return this.send(req, t, { externalId }, null, body, q);
  }

  @Post('users/:user_id/campaigns/:campaign_id/events')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send events for a customer to one campaign', description: SEND_DESCRIPTION })
  @ApiOkResponse({ type: V1EventResponse })
  @ApiErrors(...SEND_ERRORS)
  byUserCampaign(
    @Req() req: Request,
    @CurrentTenant() t: Tenant,
    @Param('user_id') userId: string,
    @Param('campaign_id', CAMPAIGN_ID) id: number,
    @Body() body: V1EventBody,
    @Query() q: V1EventQuery,
  ): Promise<V1Answer> {
    return this.send(req, t, { userId }, { id }, body, q);
  }

  @Post('external/users/:external_id/campaigns/:campaign_id/events')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send events for a customer named by external_id to one campaign', description: SEND_DESCRIPTION })
  @ApiOkResponse({ type: V1EventResponse })
  @ApiErrors(...SEND_ERRORS)
  byExternalCampaign(
    @Req() req: Request,
    @CurrentTenant() t: Tenant,
    @Param('external_id') externalId: string,
    @Param('campaign_id', CAMPAIGN_ID) id: number,
    @Body() body: V1EventBody,
    @Query() q: V1EventQuery,
  ): Promise<V1Answer> {
    return this.send(req, t, { externalId }, { id }, body, q);
  }

  @Post('users/:user_id/external/campaigns/:permalink/events')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send events for a customer to one campaign named by permalink', description: SEND_DESCRIPTION })
  @ApiOkResponse({ type: V1EventResponse })
  @ApiErrors(...SEND_ERRORS)
  byUserPermalink(
    @Req() req: Request,
    @CurrentTenant() t: Tenant,
    @Param('user_id') userId: string,
    @Param('permalink') permalink: string,
    @Body() body: V1EventBody,
    @Query() q: V1EventQuery,
  ): Promise<V1Answer> {
    return this.send(req, t, { userId }, { permalink }, body, q);
  }

  @Post('external/users/:external_id/external/campaigns/:permalink/events')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send events for a customer named by external_id to one campaign named by permalink', description: SEND_DESCRIPTION })
  @ApiOkResponse({ type: V1EventResponse })
  @ApiErrors(...SEND_ERRORS)
  byExternalPermalink(
    @Req() req: Request,
    @CurrentTenant() t: Tenant,
    @Param('external_id') externalId: string,
    @Param('permalink') permalink: string,
    @Body() body: V1EventBody,
    @Query() q: V1EventQuery,
  ): Promise<V1Answer> {
    return this.send(req, t, { externalId }, { permalink }, body, q);
  }

  @Get('users/:user_id/events')
  @ApiOperation({ summary: "A customer's available points and progress in every live campaign's behaviors" })
  @ApiOkResponse({ type: RetrievalResponse })
  @ApiErrors('validation', 'not_found')
  retrieve(@CurrentTenant() t: Tenant, @Param('user_id') userId: string, @Query() q: RetrievalQuery): Promise<RetrievalResponse> {
    return this.retrieval.execute(t, { userId }, q.division_ids);
  }

  @Get('external/users/:external_id/events')
  @ApiOperation({ summary: 'Retrieval for a customer named by external_id' })
  @ApiOkResponse({ type: RetrievalResponse })
  @ApiErrors('validation', 'not_found')
  retrieveExternal(@CurrentTenant() t: Tenant, @Param('external_id') externalId: string, @Query() q: RetrievalQuery): Promise<RetrievalResponse> {
    return this.retrieval.execute(t, { externalId }, q.division_ids);
  }
}
