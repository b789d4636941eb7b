import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { ApiIdParam } from '../../common/http/api-params.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../common/http/id.pipe.js';
import type { Tenant } from '../../common/http/request-context.js';
import { EndExperimentBody, ExperimentResultsResponse } from './dto/experiment-results.dto.js';
import { ExperimentsUseCase } from './experiments.use-case.js';

const RESULTS =
  "The experiment's settings and results (contract §20, docs/experiments.md): each group's customers, conversion and metric (sum, mean, sample " +
  'variance), each variant compared with the holdout (absolute and relative differences, 95% intervals, two-sided p-values), and the sample ratio ' +
  'check. Fresh as soon as an event is processed. Once ended, the results as of ended_at. Errors: not_found (404) when the campaign does not exist, ' +
  'is deleted, belongs to another organization or runs no experiment.';

const END =
  'Ends the experiment with a winner: from now on every customer, the holdout included, is evaluated as that variant. Answers the results frozen as ' +
  'of ended_at. Errors: validation (400) naming winner for a name that is not a variant; already_ended (409) the second time; not_found (404) as for the results.';

@ApiTags('management: experiments')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management')
export class ExperimentsController {
  constructor(private readonly experiments: ExperimentsUseCase) {}

  @Get('campaigns/:campaign_id/experiment')
  @ApiOperation({ summary: "A campaign's experiment and its results", description: RESULTS })
  @ApiIdParam('campaign_id', 'The campaign id')
  @ApiOkResponse({ type: ExperimentResultsResponse })
  @ApiErrors('not_found')
  async get(@CurrentTenant() tenant: Tenant, @Param('campaign_id', new IdPipe('campaign')) campaignId: number): Promise<ExperimentResultsResponse> {
    return { status: 'ok', experiment: await this.experiments.results(tenant, campaignId) };
  }

  @Post('campaigns/:campaign_id/experiment/end')
  @HttpCode(200)
  @ApiOperation({ summary: 'End an experiment with a winner', description: END })
  @ApiIdParam('campaign_id', 'The campaign id')
  @ApiOkResponse({ type: ExperimentResultsResponse })
  @ApiErrors('missing_data', 'argument_error', 'validation', 'not_found', 'already_ended')
  async end(
    @CurrentTenant() tenant: Tenant,
    @Param('campaign_id', new IdPipe('campaign')) campaignId: number,
    @Body() body: EndExperimentBody,
  ): Promise<ExperimentResultsResponse> {
    return { status: 'ok', experiment: await this.experiments.end(tenant, campaignId, body.winner) };
  }
}
