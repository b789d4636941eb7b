import { Module } from '@nestjs/common';
import { LoadShedding } from '../../common/auth/load-shedding.js';
import { OrganizationTurns } from '../../common/auth/organization-turns.js';
import { EventLoopLoad } from '../../common/http/event-loop-load.js';
import { RateLimiter } from '../../common/auth/rate-limiter.js';
import { AdminController } from './admin.controller.js';
import { AdminGuard } from './admin.guard.js';
import { ApiKeyService } from './api-key.service.js';
import { TenancyService } from './tenancy.service.js';

@Module({
  controllers: [AdminController],
  providers: [TenancyService, ApiKeyService, AdminGuard, RateLimiter, OrganizationTurns, EventLoopLoad, LoadShedding],
  exports: [TenancyService, ApiKeyService, RateLimiter, OrganizationTurns, LoadShedding],
})
export class TenancyModule {}
