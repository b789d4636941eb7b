import { Body, Controller, Get, Param, Post, Query, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { ApiExternalIdParam, ApiUserIdParam } from '../../common/http/api-params.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { PageQuery } from '../../common/http/pagination.dto.js';
import type { Tenant } from '../../common/http/request-context.js';
import { DebitBody, DebitResponse, PointsLedgerResponse } from './dto/points.dto.js';
import { PointsUseCase } from './points.use-case.js';

const LEDGER =
  "The customer's balances, the credits that expire next (soonest first, at most 10) and a page of the ledger, newest first: every " +
  'change of available_points is one entry (credits earned by events and perform; debits, expiries and reversals negative), so the ' +
  'entries sum to available_points. `limit` (1-100, default 10) and `page` (from 1) page it; out of range is 400 validation. ' +
  '404 not_found for an unknown customer.';
const DEBIT =
  'Spends points: they leave available_points (lifetime_points and the tier do not change), taken from the credits that expire ' +
  'soonest first (credits that never expire last). One transaction with the customer locked, as an event evaluation locks it: ' +
  'debits and events of one customer never take the balance below zero. 422 insufficient_points when more than available (nothing ' +
  'changes); 409 duplicate_transaction when the api key already debited with this transaction_id; 404 not_found for an unknown ' +
  'customer. Subscribed webhooks receive points.debited.';

@ApiTags('points')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key')
export class PointsController {
  constructor(private readonly points: PointsUseCase) {}

  @Get('users/:user_id/points')
  @ApiOperation({ summary: "A customer's points ledger, by user_id", description: LEDGER })
  @ApiUserIdParam()
  @ApiOkResponse({ type: PointsLedgerResponse, description: 'Balances, expiring credits and a page of the ledger' })
  @ApiErrors('validation', 'not_found')
  ledger(@CurrentTenant() tenant: Tenant, @Param('user_id') userId: string, @Query() query: PageQuery): Promise<PointsLedgerResponse> {
    return this.points.ledger(tenant, { userId }, query);
  }

  @Get('external/users/:external_id/points')
  @ApiOperation({ summary: "A customer's points ledger, by external_id", description: LEDGER })
  @ApiExternalIdParam()
  @ApiOkResponse({ type: PointsLedgerResponse, description: 'Balances, expiring credits and a page of the ledger' })
  @ApiErrors('validation', 'not_found')
  ledgerExternal(@CurrentTenant() tenant: Tenant, @Param('external_id') externalId: string, @Query() query: PageQuery): Promise<PointsLedgerResponse> {
    return this.points.ledger(tenant, { externalId }, query);
  }

  @Post('users/:user_id/points/debits')
  @ApiOperation({ summary: 'Spend points of a customer, by user_id', description: DEBIT })
  @ApiUserIdParam()
  @ApiCreatedResponse({ type: DebitResponse, description: 'The debit and the customer after it' })
  @ApiErrors('missing_data', 'argument_error', 'validation', 'not_found', 'duplicate_transaction', 'insufficient_points')
  debit(@Req() req: Request, @CurrentTenant() tenant: Tenant, @Param('user_id') userId: string, @Body() body: DebitBody): Promise<DebitResponse> {
    return this.points.debit(tenant, { userId }, body.debit, req.id);
  }

  @Post('external/users/:external_id/points/debits')
  @ApiOperation({ summary: 'Spend points of a customer, by external_id', description: DEBIT })
  @ApiExternalIdParam()
  @ApiCreatedResponse({ type: DebitResponse, description: 'The debit and the customer after it' })
  @ApiErrors('missing_data', 'argument_error', 'validation', 'not_found', 'duplicate_transaction', 'insufficient_points')
  debitExternal(@Req() req: Request, @CurrentTenant() tenant: Tenant, @Param('external_id') externalId: string, @Body() body: DebitBody): Promise<DebitResponse> {
    return this.points.debit(tenant, { externalId }, body.debit, req.id);
  }
}
