import { Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { LoggingModule } from './common/logging/logging.module.js';
import { ErrorFilter } from './common/errors/error.filter.js';
import { AppValidationPipe } from './common/validation/validation.pipe.js';
import { CoreModule } from './core.module.js';
import { CustomersStateModule } from './modules/customers-state/customers-state.module.js';
import { HealthModule } from './modules/health/health.module.js';
import { TenancyModule } from './modules/tenancy/tenancy.module.js';

/** The API process: HTTP only. It produces queue jobs and never processes them. */
@Module({
  imports: [CoreModule, LoggingModule.forRoot('api'), HealthModule, TenancyModule, CustomersStateModule],
  providers: [
    { provide: APP_FILTER, useClass: ErrorFilter },
    { provide: APP_PIPE, useClass: AppValidationPipe },
  ],
})
export class AppModule {}
