import { Controller, Get, Param, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../../common/http/current-tenant.decorator.js';
import { IdPipe } from '../../../common/http/id.pipe.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { AudienceJobsService } from './audience-jobs.service.js';
import { AudienceJobListResponse } from './dto/audience-job.dto.js';

@ApiTags('management: creatives')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management/creatives/:creative_id/audience_jobs')
export class AudienceJobsController {
  constructor(private readonly jobs: AudienceJobsService) {}

  @Get()
  @ApiOperation({ summary: "A scheduled creative's audience jobs, newest first (one per scheduled run)" })
  @ApiOkResponse({ type: AudienceJobListResponse })
  @ApiErrors('not_found')
  async list(@CurrentTenant() tenant: Tenant, @Param('creative_id', new IdPipe('creative')) creativeId: number): Promise<AudienceJobListResponse> {
    return { status: 'ok', audience_jobs: await this.jobs.list(tenant, creativeId) };
  }

  @Get(':job_id/download')
  @ApiOperation({ summary: "A completed audience job's CSV (header external_id,user_id; one customer a line)" })
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'The CSV file', schema: { type: 'string', example: 'external_id,user_id\nc-1,0b6b2a3e-6f0e-4c57-9b59-0f2a3c1d2e4f\n' } })
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
