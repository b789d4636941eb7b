import { Global, Module } from '@nestjs/common';
import { ApiKeyVerifier } from '../../common/auth/api-key-verifier.js';
import { LoadShedding } from '../../common/auth/load-shedding.js';
import { OrganizationTurns } from '../../common/auth/organization-turns.js';
import { EventLoopLoad } from '../../common/http/event-loop-load.js';
import { RateLimiter } from '../../common/auth/rate-limiter.js';
import { AdminController } from './admin.controller.js';
import { AdminGuard } from './admin.guard.js';
import { ApiKeyService } from './api-key.service.js';
import { TenancyService } from './tenancy.service.js';

/** Organizations, applications and their api keys: global, since every route's guard asks it who a key's tenant is. */
@Global()
@Module({
  controllers: [AdminController],
  providers: [TenancyService, ApiKeyService, { provide: ApiKeyVerifier, useExisting: ApiKeyService }, AdminGuard, RateLimiter, OrganizationTurns, EventLoopLoad, LoadShedding],
  exports: [TenancyService, ApiKeyService, ApiKeyVerifier, RateLimiter, OrganizationTurns, LoadShedding],
})
export class TenancyModule {}
