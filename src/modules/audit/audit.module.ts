import { Global, Module } from '@nestjs/common';
import { AuditController } from './audit.controller.js';
import { AuditLogService } from './audit-log.service.js';
import { ConfigChangesService } from './config-changes.service.js';

@Global()
@Module({
  controllers: [AuditController],
  providers: [ConfigChangesService, AuditLogService],
  exports: [ConfigChangesService],
})
export class AuditModule {}
