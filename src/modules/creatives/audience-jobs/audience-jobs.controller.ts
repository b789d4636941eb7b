import { Controller, Get, Param, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../../common/http/id.pipe.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { ApiIdParam } from '../../../common/http/api-params.js';
import { AudienceJobsService } from './audience-jobs.service.js';
import { AudienceJobListResponse } from './dto/audience-job.dto.js';

const CREATIVE_ID = () => ApiIdParam('creative_id', 'The creative id');
const CREATIVE_NOT_FOUND = 'not_found (404) when the creative does not exist, is deleted or belongs to another organization';

/** The 200 of a download: the CSV itself (errors are JSON, in the error envelope, like everywhere else). */
const CSV = {
  description: 'The CSV file, as an attachment named audience-job-<job_id>.csv',
  headers: { 'Content-Disposition': { description: 'attachment; filename="audience-job-<job_id>.csv"', schema: { type: 'string' } } },
  content: {
    'text/csv': { schema: { type: 'string', example: 'external_id,user_id\nc-1,0b6b2a3e-6f0e-4c57-9b59-0f2a3c1d2e4f\n' } },
  },
};

@ApiTags('management: creatives')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management/creatives/:creative_id/audience_jobs')
export class AudienceJobsController {
  constructor(private readonly jobs: AudienceJobsService) {}

  @Get()
  @ApiOperation({
    summary: "List a creative's audience jobs",
    description:
      'Answers the audience jobs of a scheduled creative, newest first: one per scheduled run, with its status and, once completed, ' +
      `its customer count. A triggered creative has none. Errors: ${CREATIVE_NOT_FOUND}.`,
  })
  @CREATIVE_ID()
  @ApiOkResponse({ type: AudienceJobListResponse })
  @ApiErrors('not_found')
  async list(@CurrentTenant() tenant: Tenant, @Param('creative_id', new IdPipe('creative')) creativeId: number): Promise<AudienceJobListResponse> {
    return { status: 'ok', audience_jobs: await this.jobs.list(tenant, creativeId) };
  }

  @Get(':job_id/download')
  @ApiOperation({
    summary: "Download a completed audience job's CSV",
    description:
      'Answers the CSV of a completed audience job of the creative (text/csv): the header external_id,user_id, then one targeted ' +
      `customer a line. Errors, as JSON: ${CREATIVE_NOT_FOUND}, or when the job is not one of the creative's, has not completed, or ` +
      'wrote no file (only creatives of ad_type issue_audience_csv and issue_audience_csv_no_msg write one).',
  })
  @CREATIVE_ID()
  @ApiIdParam('job_id', 'The audience job id, from the list of the creative\'s audience jobs')
  @ApiOkResponse(CSV)
  @ApiErrors('not_found')
  async download(
    @CurrentTenant() tenant: Tenant,
    @Param('creative_id', new IdPipe('creative')) creativeId: number,
    @Param('job_id', new IdPipe('audience job')) jobId: number,
  ): Promise<StreamableFile> {
    const file = await this.jobs.file(tenant, creativeId, jobId);
    return new StreamableFile(file.stream, { type: 'text/csv; charset=utf-8', disposition: `attachment; filename="${file.name}"`, length: file.size });
  }
}
