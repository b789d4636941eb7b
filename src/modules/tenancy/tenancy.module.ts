import { Module } from '@nestjs/common';
import { OrganizationTurns } from '../../common/auth/organization-turns.js';
import { RateLimiter } from '../../common/auth/rate-limiter.js';
import { AdminController } from './admin.controller.js';
import { AdminGuard } from './admin.guard.js';
import { ApiKeyService } from './api-key.service.js';
import { TenancyService } from './tenancy.service.js';

@Module({
  controllers: [AdminController],
  providers: [TenancyService, ApiKeyService, AdminGuard, RateLimiter, OrganizationTurns],
  exports: [TenancyService, ApiKeyService, RateLimiter, OrganizationTurns],
})
export class TenancyModule {}
