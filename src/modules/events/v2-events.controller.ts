import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import type { Tenant } from '../../common/http/request-context.js';
import { V2EventObject, V2EventsBody, V2EventsResponse } from './dto/v2-events.dto.js';
import { V2EventsUseCase } from './v2-events.use-case.js';

@ApiTags('events v2')
@ApiKeyAuth()
@ApiExtraModels(V2EventObject)
@Controller('priv/v2/apps/:api_key/events')
export class V2EventsController {
  constructor(private readonly events: V2EventsUseCase) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Send events for one or many customers; stored before the answer, evaluated by the workers',
    description:
      'Takes {"events": <event>} or {"events": [<event>, ...]} (up to 1,000), each naming its customer by user_id or external_id and ' +
      'counting by (a number or a numeric string, default 1). The events are stored before the answer {"status":"ok"} and evaluated ' +
      'by the workers moments later, so the answer carries no progress (read it with GET /priv/v1/apps/{api_key}/users/{user_id}/events).\n\n' +
      'The customers must exist already (create them with POST /priv/v1/apps/{api_key}/users). The request does not check them: ' +
      'an event whose customer does not exist is stored and answered 200 like any other, then rejected by the worker (reason ' +
      'customer_not_found) and never retried. Rejected events are listed by GET /priv/v1/apps/{api_key}/events/rejected (and by ' +
      'npm run cli -- events:rejected).\n\n' +
      "A V2 event has no attributes member: its pivots (such as store_id) go in context, where a unique goal's unique_attribute " +
      'finds them and goal criteria name them as context.<name>. A repeated transaction_id is accepted and ignored.\n\n' +
      'Errors: any invalid event rejects the whole request and nothing is stored: 400 missing_data naming each index and field ' +
      '(no name, no user_id nor external_id, a malformed member, with multi-org on a context.division_id that is not a division of ' +
      'the organization; also no events at all), 400 argument_error (a member not listed here), 413 payload_too_large (more than ' +
      '1,000 events, or a body over the size limit).',
  })
  @ApiBody({ type: V2EventsBody })
  @ApiOkResponse({ type: V2EventsResponse })
  @ApiErrors('missing_data', 'argument_error', 'payload_too_large')
  send(@Req() req: Request, @CurrentTenant() tenant: Tenant, @Body() body: unknown): Promise<V2EventsResponse> {
    return this.events.execute(tenant, body, req.id);
  }
}
