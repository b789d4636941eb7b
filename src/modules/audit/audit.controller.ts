import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import { PageQuery } from '../../common/http/pagination.dto.js';
import { AuditLogService } from './audit-log.service.js';
import type { Tenant } from '../../common/http/request-context.js';
import { AuditLogResponse } from './dto/audit.dto.js';

@ApiTags('management: audit log')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management/audit_log')
export class AuditController {
  constructor(private readonly auditLog: AuditLogService) {}

  @Get()
  @ApiOperation({
    summary: 'List configuration changes (audit log)',
    description:
      'Every create, update and delete made through the management API (campaigns, line items, creative groups, creatives, ' +
      'behaviors, offers, tiers, divisions, webhooks) in the organization, newest first: which api key, what object, the object ' +
      'before and after, when. A refused write or one that changed nothing is not recorded; webhook secrets never appear. ' +
      '`limit` (1-100, default 10) and `page` (from 1) page it; out of range is 400 validation.',
  })
  @ApiOkResponse({ type: AuditLogResponse, description: 'A page of the audit log, newest first' })
  @ApiErrors('validation')
  list(@CurrentTenant() tenant: Tenant, @Query() query: PageQuery): Promise<AuditLogResponse> {
    return this.auditLog.list(tenant, query);
  }
}
