import { Module } from '@nestjs/common';
import { AdminController } from './admin.controller.js';
import { AdminGuard } from './admin.guard.js';
import { ApiKeyService } from './api-key.service.js';
import { TenancyService } from './tenancy.service.js';

@Module({
  controllers: [AdminController],
  providers: [TenancyService, ApiKeyService, AdminGuard],
  exports: [TenancyService, ApiKeyService],
})
export class TenancyModule {}
