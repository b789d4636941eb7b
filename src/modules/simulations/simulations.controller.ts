import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { ApiIdParam } from '../../common/http/api-params.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import { PageQuery } from '../../common/http/pagination.dto.js';
import type { Tenant } from '../../common/http/request-context.js';
import { DEFAULT_LIMITS, LIMIT_SETTINGS } from '../../config/limits.js';
import {
  BehaviorResultsView,
  DayResultsView,
  CreateSimulationBody,
  MAX_EXPLAINED_CUSTOMERS,
  MAX_SIMULATION_CUSTOMERS,
  QueuedSimulationResponse,
  SimulationListResponse,
  SimulationResponse,
} from './dto/simulation.dto.js';
import { SimulationsService } from './simulations.service.js';

const CAMPAIGN_ID = () => ApiIdParam('campaign_id', 'The campaign id');
const SIMULATION_ID = () => ApiIdParam('simulation_id', 'The simulation id');
const CAMPAIGN_NOT_FOUND = 'not_found (404) when the campaign does not exist, is deleted or belongs to another organization';
const NOT_FOUND = 'not_found (404) when the simulation does not exist or belongs to another organization';
const CREATE =
  'Queues a simulation: a worker replays every stored event of the range (from and to inclusive; processed, pending or not ' +
  'qualified, rejected ones left out) of the chosen customers (customer_ids, or every customer with events in the range) against ' +
  'the campaign as it is now, whatever its status (a draft is the usual case), as if it were live over the range and the only ' +
  "campaign: each customer's events in the order they occurred, from no progress, with the customer's current profile; its caps " +
  'and budget apply within the simulation. Nothing is written but the simulation. Answers 202 with the simulation queued; read ' +
  'it for its progress and results. Errors: missing_data (400) without the simulation wrapper, from or to; argument_error (400) ' +
  'for members it does not know; validation (400) for a bad datetime, to not after from or more than ' +
  `${DEFAULT_LIMITS.simulationYears} years after it (by default, ${LIMIT_SETTINGS.simulationYears.env}), customer_ids that are not user ids or ` +
  `more than ${MAX_SIMULATION_CUSTOMERS}, explain without customer_ids of at most ${MAX_EXPLAINED_CUSTOMERS}; ${CAMPAIGN_NOT_FOUND}.`;

@ApiTags('management: simulations')
@ApiKeyAuth()
@ApiExtraModels(BehaviorResultsView, DayResultsView)
@Controller('priv/v1/apps/:api_key/management')
export class SimulationsController {
  constructor(private readonly simulations: SimulationsService) {}

  @Post('campaigns/:campaign_id/simulations')
  @HttpCode(202)
  @ApiOperation({ summary: 'Simulate a campaign against stored events', description: CREATE })
  @CAMPAIGN_ID()
  @ApiAcceptedResponse({ type: QueuedSimulationResponse, description: 'The simulation, queued for a worker' })
  @ApiErrors('missing_data', 'argument_error', 'validation', 'not_found')
  async create(
    @CurrentTenant() tenant: Tenant,
    @Param('campaign_id', new IdPipe('campaign')) campaignId: number,
    @Body() body: CreateSimulationBody,
  ): Promise<QueuedSimulationResponse> {
    return { status: 'ok', simulation: await this.simulations.create(tenant, campaignId, body.simulation) };
  }

  @Get('campaigns/:campaign_id/simulations')
  @ApiOperation({
    summary: "List a campaign's simulations",
    description:
      "A page of the campaign's simulations, newest first, with the total count; results and explanations are null in the list " +
      `(read one simulation for them). Errors: validation (400) when limit is not an integer from 1 to 100 or page not one from 1; ${CAMPAIGN_NOT_FOUND}.`,
  })
  @CAMPAIGN_ID()
  @ApiOkResponse({ type: SimulationListResponse })
  @ApiErrors('validation', 'not_found')
  async list(@CurrentTenant() tenant: Tenant, @Param('campaign_id', new IdPipe('campaign')) campaignId: number, @Query() query: PageQuery): Promise<SimulationListResponse> {
    return this.simulations.list(tenant, campaignId, query);
  }

  @Get('simulations/:simulation_id')
  @ApiOperation({
    summary: 'Read a simulation',
    description:
      'The simulation with its status (queued, running, completed, failed or cancelled), the customers and stored events replayed ' +
      "so far, and once completed its results: points, achievements and customers who achieved, by behavior, by day of the organization's " +
      `time zone (days with no achievement left out) and the count of events by campaign state; with explain, each customer's explanations. Errors: ${NOT_FOUND}.`,
  })
  @SIMULATION_ID()
  @ApiOkResponse({ type: SimulationResponse })
  @ApiErrors('not_found')
  async get(@CurrentTenant() tenant: Tenant, @Param('simulation_id', new IdPipe('simulation')) id: number): Promise<SimulationResponse> {
    return { status: 'ok', simulation: await this.simulations.get(tenant, id) };
  }

  @Delete('simulations/:simulation_id')
  @ApiOperation({
    summary: 'Cancel a simulation',
    description:
      'Cancels a queued or running simulation (a running one stops within about a second, writing nothing more) and answers it. ' +
      `A simulation that already finished is answered as it is, unchanged. Errors: ${NOT_FOUND}.`,
  })
  @SIMULATION_ID()
  @ApiOkResponse({ type: SimulationResponse })
  @ApiErrors('not_found')
  async cancel(@CurrentTenant() tenant: Tenant, @Param('simulation_id', new IdPipe('simulation')) id: number): Promise<SimulationResponse> {
    return { status: 'ok', simulation: await this.simulations.cancel(tenant, id) };
  }
}
