import { Module } from '@nestjs/common';
import { RateLimiter } from '../../common/auth/rate-limiter.js';
import { AdminController } from './admin.controller.js';
import { AdminGuard } from './admin.guard.js';
import { ApiKeyService } from './api-key.service.js';
import { TenancyService } from './tenancy.service.js';

@Module({
  controllers: [AdminController],
  providers: [TenancyService, ApiKeyService, AdminGuard, RateLimiter],
  exports: [TenancyService, ApiKeyService, RateLimiter],
})
export class TenancyModule {}
