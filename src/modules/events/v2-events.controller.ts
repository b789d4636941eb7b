import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import type { Tenant } from '../../common/http/request-context.js';
import { V2EventsUseCase } from './v2-events.use-case.js';

class V2EventObject {
  @ApiProperty({ example: 'app_download' }) name: string;
  @ApiPropertyOptional({ example: 1, description: 'Count (number or numeric string); default 1' }) by?: number;
  @ApiPropertyOptional({ example: 'c-1', description: 'Required when user_id is absent' }) external_id?: string;
  @ApiPropertyOptional({ example: '8d4f7a52-2b1e-4c0a-9a57-0f3c1d2e4b6a', description: 'Required when external_id is absent' }) user_id?: string;
  @ApiPropertyOptional({ example: '2026-01-05T10:00:00Z' }) occurred_at?: string;
  @ApiPropertyOptional({ example: 'b7f1c2d4-0e9a-4c1b-8f3e-2a6d5c4b3a21', description: 'Idempotency key per api key; a repeat is ignored' })
  transaction_id?: string;
  @ApiPropertyOptional({ example: { app_name: 'Acme', version: '2.1', downloaded_at: '2026-01-05T09:58:00Z', division_id: '3' } })
  context?: Record<string, string | number | boolean>;
}

class V2EventsBody {
  @ApiProperty({ type: [V2EventObject], description: 'One event object, or an array of up to 1,000' }) events: V2EventObject | V2EventObject[];
}

class V2EventsResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
}

@ApiTags('events v2')
@ApiKeyAuth()
@Controller('priv/v2/apps/:api_key/events')
export class V2EventsController {
  constructor(private readonly events: V2EventsUseCase) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Send events for one or many customers; stored before the answer, evaluated by the workers',
    description:
      'Takes {"events": <event>} or {"events": [<event>, ...]} (up to 1,000), each naming its customer by user_id or external_id. ' +
      'Any invalid event rejects the whole request and nothing is stored. A repeated transaction_id is accepted and ignored. ' +
      'The customers must exist already (create them with POST /priv/v1/apps/{api_key}/users): 200 only means the events are stored; ' +
      'a worker evaluates them moments later, and an event whose customer does not exist is then rejected (reason customer_not_found), ' +
      'never retried. Rejected events are listed by GET /priv/v1/apps/{api_key}/events/rejected and by npm run cli -- events:rejected. ' +
      'A V2 event has no attributes member: its pivots (such as store_id) go in context, where a unique goal\'s unique_attribute ' +
      'finds them and goal criteria name them as context.<name>.',
  })
  @ApiBody({ type: V2EventsBody })
  @ApiOkResponse({ type: V2EventsResponse })
  @ApiErrors('missing_data', 'argument_error', 'payload_too_large', 'service_unavailable')
  send(@Req() req: Request, @CurrentTenant() tenant: Tenant, @Body() body: unknown): Promise<{ status: 'ok' }> {
    return this.events.execute(tenant, body, req.id);
  }
}
