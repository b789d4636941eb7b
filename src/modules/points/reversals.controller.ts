import { Body, Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { ApiExternalIdParam, ApiUserIdParam } from '../../common/http/api-params.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import type { Tenant } from '../../common/http/request-context.js';
import { ReversalBody, ReversalResponse } from './dto/points.dto.js';
import { ReversalUseCase } from './reversal.use-case.js';

const REVERSAL =
  'Takes back what an earlier V1 or V2 submission of this customer earned (a refund, fraud), named by its transaction_id under ' +
  'this api key: the points its events and the event outcomes they raised credited leave available_points (as far as they go: ' +
  '`points` answers what was taken) and lifetime_points; each behavior completion they caused is undone (achieved goes down by ' +
  'one, which frees room under the caps). Goal progress, notifications, issued offers, tags and the tier stay. One transaction ' +
  'with the customer locked, as an event evaluation locks it. 404 not_found for an unknown transaction_id or one of another ' +
  'customer; 409 already_reversed for a second reversal; 409 not_processed_yet while the submission waits in the queue. ' +
  'Subscribed webhooks receive points.reversed.';
const ERRORS = ['missing_data', 'argument_error', 'validation', 'not_found', 'already_reversed', 'not_processed_yet'] as const;

@ApiTags('points')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key')
export class ReversalsController {
  constructor(private readonly reversals: ReversalUseCase) {}

  @Post('users/:user_id/events/reversals')
  @HttpCode(200)
  @ApiOperation({ summary: 'Reverse a submission of a customer, by user_id', description: REVERSAL })
  @ApiUserIdParam()
  @ApiOkResponse({ type: ReversalResponse, description: 'The reversal and the customer after it' })
  @ApiErrors(...ERRORS)
  reverse(@Req() req: Request, @CurrentTenant() tenant: Tenant, @Param('user_id') userId: string, @Body() body: ReversalBody): Promise<ReversalResponse> {
    return this.reversals.reverse(tenant, { userId }, body.reversal, req.id);
  }

  @Post('external/users/:external_id/events/reversals')
  @HttpCode(200)
  @ApiOperation({ summary: 'Reverse a submission of a customer, by external_id', description: REVERSAL })
  @ApiExternalIdParam()
  @ApiOkResponse({ type: ReversalResponse, description: 'The reversal and the customer after it' })
  @ApiErrors(...ERRORS)
  reverseExternal(@Req() req: Request, @CurrentTenant() tenant: Tenant, @Param('external_id') externalId: string, @Body() body: ReversalBody): Promise<ReversalResponse> {
    return this.reversals.reverse(tenant, { externalId }, body.reversal, req.id);
  }
}
