import { Controller, Delete, Get, Param, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { ApiExternalIdParam, ApiUserIdParam } from '../../common/http/api-params.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import type { Tenant } from '../../common/http/request-context.js';
import { CustomerExportUseCase } from './customer-export.js';
import { CustomerExportResponse, ErasureResponse } from './dto/data-rights.dto.js';
import { EraseCustomerUseCase } from './erase-customer.use-case.js';

const EXPORT =
  'Everything the service stores about the customer (GDPR articles 15 and 20, CCPA): the profile as GET .../users answers it, ' +
  'every event of every month the log still holds (with its attributes, context and status), the points ledger, progress in every ' +
  'live behavior as retrieval answers it, notifications, issued offers, tier history, experiment groups and the webhook deliveries ' +
  'about them. Lists are newest first. Streamed as it is read: a customer with a long history is exported without the service ' +
  "holding it in memory. 404 not_found when it is not a customer of the api key's organization (an erased customer included).";

const ERASE =
  "Erases the customer (GDPR article 17, CCPA). From this answer on no route answers anything of them (the user and everything " +
  'under it answer 404), their external_id is free for a new customer, events of theirs still in the queue are dropped, and webhook ' +
  'deliveries about them not yet made are cancelled. The rest (every month of the event log, the ledger, notifications, offers, tier ' +
  'history, delivered webhooks\' payloads, audience files, simulation explanations) is removed by the workers within seconds, surviving ' +
  'any crash. What names no one stays: budgets used, analytics and experiment counts, simulation totals; transaction ids they used stay ' +
  'used. Written to the audit log by internal id alone, and sent as the webhook event user.erased. A second erasure answers 404 not_found.';

@ApiTags('customers')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key')
export class DataRightsController {
  constructor(
    private readonly exports: CustomerExportUseCase,
    private readonly erasure: EraseCustomerUseCase,
  ) {}

  @Get('users/:user_id/export')
  @ApiOperation({ summary: 'Export everything stored about a customer, by user_id', description: EXPORT })
  @ApiUserIdParam()
  @ApiProduces('application/json')
  @ApiOkResponse({ type: CustomerExportResponse, description: 'Everything stored about the customer' })
  @ApiErrors('not_found')
  export(@CurrentTenant() tenant: Tenant, @Param('user_id') userId: string, @Res() res: Response): Promise<void> {
    return this.exports.write(tenant, { userId }, res);
  }

  @Get('external/users/:external_id/export')
  @ApiOperation({ summary: 'Export everything stored about a customer, by external_id', description: EXPORT })
  @ApiExternalIdParam()
  @ApiProduces('application/json')
  @ApiOkResponse({ type: CustomerExportResponse, description: 'Everything stored about the customer' })
  @ApiErrors('not_found')
  exportExternal(@CurrentTenant() tenant: Tenant, @Param('external_id') externalId: string, @Res() res: Response): Promise<void> {
    return this.exports.write(tenant, { externalId }, res);
  }

  @Delete('users/:user_id')
  @ApiOperation({ summary: 'Erase a customer, by user_id', description: ERASE })
  @ApiUserIdParam()
  @ApiOkResponse({ type: ErasureResponse, description: 'The erasure: from now on nothing of the customer is answered' })
  @ApiErrors('not_found')
  erase(@Req() req: Request, @CurrentTenant() tenant: Tenant, @Param('user_id') userId: string): Promise<ErasureResponse> {
    return this.erasure.erase(tenant, { userId }, req.id);
  }

  @Delete('external/users/:external_id')
  @ApiOperation({ summary: 'Erase a customer, by external_id', description: ERASE })
  @ApiExternalIdParam()
  @ApiOkResponse({ type: ErasureResponse, description: 'The erasure: from now on nothing of the customer is answered' })
  @ApiErrors('not_found')
  eraseExternal(@Req() req: Request, @CurrentTenant() tenant: Tenant, @Param('external_id') externalId: string): Promise<ErasureResponse> {
    return this.erasure.erase(tenant, { externalId }, req.id);
  }
}
