import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiQuery, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { AppError } from '../../common/errors/app-error.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import type { Tenant } from '../../common/http/request-context.js';
import { BehaviorChange, GoalProgressView, GroupProgressView, RetrievalBehaviorView, V1BehaviorView } from './dto/behavior-progress.dto.js';
import { ApiExternalIdParam, ApiIdParam, ApiPermalinkParam, ApiUserIdParam } from '../../common/http/api-params.js';
import { DIVISION_IDS_BRACKETS_QUERY, DIVISION_IDS_QUERY, RetrievalQuery, RetrievalResponse } from './dto/retrieval.dto.js';
import { V1AsyncResponse, V1EventResponse, V1QualificationResponse } from './dto/v1-answer.dto.js';
import { V1EventBody, V1EventQuery } from './dto/v1-event.dto.js';
import type { CustomerKey } from '../evaluation/index.js';
import { RetrievalUseCase } from './retrieval.use-case.js';
import type { CampaignKey } from './scope.js';
import { V1Answer, V1EventsUseCase } from './v1-events.use-case.js';

/** A V1 path's campaign id that cannot name a campaign is the same answer as one naming no live campaign. */
const CAMPAIGN_ID = new IdPipe('campaign', () => new AppError('No_active_campaign_found', 'no live campaign matches the request'));
const SEND_ERRORS = ['missing_event_data', 'argument_error', 'validation', 'not_found', 'duplicate_transaction'] as const;
const NO_CAMPAIGN = 'not a live campaign of the organization (missing, not live or deleted) → 404 No_active_campaign_found';

/** The operation's description: what the route evaluates, then what every V1 submission shares. */
function sendDescription(scope: string): string {
  return (
    `Submits events for one customer ${scope} and answers the customer's progress. The customer must exist (create it with ` +
    'POST /priv/v1/apps/{api_key}/users); else 404 not_found. The answer (200) depends on the query:\n\n' +
    '- no query (or read_only: true in the body): V1EventResponse, the events evaluated now in one transaction: behaviors (by name, ' +
    'with goals, groups and the deltas of this request), deltas, user, notifications, qualified and state; with explain=true also ' +
    'explanation. read_only: true evaluates the same way and stores nothing.\n' +
    '- async=true: V1AsyncResponse {"status":"ok"}, the events stored and queued for a worker (read the progress later with GET ' +
    '.../events); explain=true is then ignored.\n' +
    '- qualify=true: V1QualificationResponse {"status","qualified","state","notifications"}, a dry eligibility check that writes ' +
    'nothing; it wins over async, read_only and explain.\n\n' +
    'The body member "qualify": true is another thing: it opts the customer in to the opt-in campaigns the events reach and ' +
    'processes them. A completion shows in deltas as achieved 1 and reset true: the goals restart at 0 for the next cycle. ' +
    'Errors: 400 missing_event_data (no events), 400 validation (a malformed event, date, division or flag), 400 argument_error ' +
    '(an unknown body member), 409 duplicate_transaction (transaction_id already used under this api key, also with read_only and async).'
  );
}

const ALL = sendDescription('to every live campaign listening to them');
const BY_ID = sendDescription(`to the one campaign campaign_id names (only its behaviors are evaluated and answered; ${NO_CAMPAIGN})`);
const BY_PERMALINK = sendDescription(`to the one campaign permalink names (only its behaviors are evaluated and answered; ${NO_CAMPAIGN})`);
const RETRIEVE =
  "Answers the customer's available points and progress in every behavior of every live campaign (behaviors by name, each with " +
  'its goals), without evaluating anything. With multi-org on, division_ids limits the behaviors to campaigns of those divisions. ' +
  'Errors: 404 not_found (no such customer), 400 validation (a division_ids value that is not a division of the organization).';

/** The 200 of a V1 submission: one of the three answers, by query. */
const SEND_OK = ApiOkResponse({
  description:
    'V1EventResponse without async or qualify (and whenever read_only: true is in the body, unless qualify=true); V1AsyncResponse ' +
    'with async=true; V1QualificationResponse with qualify=true',
  schema: { oneOf: [V1EventResponse, V1AsyncResponse, V1QualificationResponse].map((model) => ({ $ref: getSchemaPath(model) })) },
});

@ApiTags('events v1')
@ApiKeyAuth()
@ApiExtraModels(V1EventResponse, V1AsyncResponse, V1QualificationResponse, V1BehaviorView, BehaviorChange, GoalProgressView, GroupProgressView, RetrievalBehaviorView)
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
  @ApiOperation({ summary: 'Send events for a customer, to every live campaign', description: ALL })
  @ApiUserIdParam()
  @SEND_OK
  @ApiErrors(...SEND_ERRORS)
  byUser(@Req() req: Request, @CurrentTenant() t: Tenant, @Param('user_id') userId: string, @Body() body: V1EventBody, @Query() q: V1EventQuery): Promise<V1Answer> {
    return this.send(req, t, { userId }, null, body, q);
  }

  @Post('external/users/:external_id/events')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send events for a customer named by external_id, to every live campaign', description: ALL })
  @ApiExternalIdParam()
  @SEND_OK
  @ApiErrors(...SEND_ERRORS)
  byExternal(@Req() req: Request, @CurrentTenant() t: Tenant, @Param('external_id') externalId: string, @Body() body: V1EventBody, @Query() q: V1EventQuery): Promise<V1Answer> {
    return this.send(req, t, { externalId }, null, body, q);
  }

  @Post('users/:user_id/campaigns/:campaign_id/events')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send events for a customer to one campaign', description: BY_ID })
  @ApiUserIdParam()
  @ApiIdParam('campaign_id', `Campaign id; ${NO_CAMPAIGN}`)
  @SEND_OK
  @ApiErrors(...SEND_ERRORS, 'No_active_campaign_found')
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
  @ApiOperation({ summary: 'Send events for a customer named by external_id to one campaign', description: BY_ID })
  @ApiExternalIdParam()
  @ApiIdParam('campaign_id', `Campaign id; ${NO_CAMPAIGN}`)
  @SEND_OK
  @ApiErrors(...SEND_ERRORS, 'No_active_campaign_found')
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
  @ApiOperation({ summary: 'Send events for a customer to one campaign named by permalink', description: BY_PERMALINK })
  @ApiUserIdParam()
  @ApiPermalinkParam(NO_CAMPAIGN)
  @SEND_OK
  @ApiErrors(...SEND_ERRORS, 'No_active_campaign_found')
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
  @ApiOperation({ summary: 'Send events for a customer named by external_id to one campaign named by permalink', description: BY_PERMALINK })
  @ApiExternalIdParam()
  @ApiPermalinkParam(NO_CAMPAIGN)
  @SEND_OK
  @ApiErrors(...SEND_ERRORS, 'No_active_campaign_found')
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
  @ApiOperation({ summary: "A customer's available points and progress in every live campaign's behaviors", description: RETRIEVE })
  @ApiUserIdParam()
  @ApiQuery(DIVISION_IDS_QUERY)
  @ApiQuery(DIVISION_IDS_BRACKETS_QUERY)
  @ApiOkResponse({ type: RetrievalResponse })
  @ApiErrors('validation', 'not_found')
  retrieve(@CurrentTenant() t: Tenant, @Param('user_id') userId: string, @Query() q: RetrievalQuery): Promise<RetrievalResponse> {
    return this.retrieval.execute(t, { userId }, q.division_ids);
  }

  @Get('external/users/:external_id/events')
  @ApiOperation({ summary: "A customer's (named by external_id) available points and progress in every live campaign's behaviors", description: RETRIEVE })
  @ApiExternalIdParam()
  @ApiQuery(DIVISION_IDS_QUERY)
  @ApiQuery(DIVISION_IDS_BRACKETS_QUERY)
  @ApiOkResponse({ type: RetrievalResponse })
  @ApiErrors('validation', 'not_found')
  retrieveExternal(@CurrentTenant() t: Tenant, @Param('external_id') externalId: string, @Query() q: RetrievalQuery): Promise<RetrievalResponse> {
    return this.retrieval.execute(t, { externalId }, q.division_ids);
  }
}
