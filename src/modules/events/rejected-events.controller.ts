import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { PageQuery, pageWindow } from '../../common/http/pagination.dto.js';
import type { Tenant } from '../../common/http/request-context.js';
import { RejectedEventsResponse } from './dto/rejected-events.dto.js';
import { listRejectedEvents } from './rejected-events.js';

@ApiTags('events v2')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/events/rejected')
export class RejectedEventsController {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @Get()
  @ApiOperation({
    summary: 'Events the workers rejected, newest first (e.g. a V2 event for a customer that does not exist)',
    description:
      'V2 events (and V1 events sent with async=true) are answered 200 once stored, before any evaluation. A worker that then finds no ' +
      'customer of the organization with the event\'s user_id or external_id marks it rejected with reason customer_not_found and never ' +
      'retries it. This lists those events of the api key\'s organization (all its api keys), paged with limit (1-100, default 10) and page ' +
      '(from 1): name, user_ref (the external_id or user_id the event named), reason, source, transaction_id, occurred_at, created_at. ' +
      'Create the customer and send the event again to have it counted. Also from the command line: npm run cli -- events:rejected.',
  })
  @ApiOkResponse({ type: RejectedEventsResponse })
  @ApiErrors('validation')
  async list(@CurrentTenant() tenant: Tenant, @Query() query: PageQuery): Promise<RejectedEventsResponse> {
    const { take, skip } = pageWindow(query);
    const { events, total } = await listRejectedEvents(this.db, tenant.organizationId, take, skip);
    return { status: 'ok', events, page: query.page, limit: query.limit, total };
  }
}
