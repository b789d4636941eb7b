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
  @ApiOperation({ summary: "The organization's configuration changes, newest first: who (api key), what (before, after), when" })
  @ApiOkResponse({ type: AuditLogResponse })
  @ApiErrors('validation')
  list(@CurrentTenant() tenant: Tenant, @Query() query: PageQuery): Promise<AuditLogResponse> {
    return this.auditLog.list(tenant, query);
  }
}
