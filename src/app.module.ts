import { Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { LoggingModule } from './common/logging/logging.module.js';
import { ErrorFilter } from './common/errors/error.filter.js';
import { AppValidationPipe } from './common/validation/validation.pipe.js';
import { CoreModule } from './core.module.js';
import { AuditModule } from './modules/audit/index.js';
import { BehaviorsModule, CampaignsModule, LineItemsModule, OffersModule, RulesModule } from './modules/campaigns/index.js';
import { CreativesModule } from './modules/creatives/index.js';
import { CustomersStateModule, TiersModule } from './modules/customers-state/index.js';
import { DivisionsModule, TenancyModule } from './modules/tenancy/index.js';
import { EventsModule } from './modules/events/index.js';
import { HealthModule } from './modules/health/index.js';
import { MetricsModule } from './modules/metrics/index.js';
import { SimulationsModule } from './modules/simulations/index.js';
import { AnalyticsModule } from './modules/analytics/index.js';
import { ExperimentsModule } from './modules/experiments/index.js';
import { DataRightsModule } from './modules/data-rights/index.js';
import { SettingsModule } from './modules/settings/index.js';
import { ExtensionsApiModule } from './modules/extensions/index.js';
import { PointsModule } from './modules/points/index.js';
import { DomainActionsModule } from './modules/domain-actions/index.js';
import { WebhooksModule } from './modules/webhooks/index.js';

/** The API process: HTTP only. It produces queue jobs and never processes them. */
@Module({
  imports: [
    CoreModule,
    LoggingModule.forRoot('api'),
    HealthModule,
    MetricsModule,
    // Event routes first: Express matches routes in registration order, and these are the hot path.
    EventsModule,
    TenancyModule,
    DivisionsModule,
    AuditModule,
    CustomersStateModule,
    TiersModule,
    CampaignsModule,
    LineItemsModule,
    BehaviorsModule,
    OffersModule,
    CreativesModule,
    RulesModule,
    WebhooksModule,
    DomainActionsModule,
    PointsModule,
    SettingsModule,
    ExtensionsApiModule,
    SimulationsModule,
    AnalyticsModule,
    ExperimentsModule,
    DataRightsModule,
  ],
  providers: [
    { provide: APP_FILTER, useClass: ErrorFilter },
    { provide: APP_PIPE, useClass: AppValidationPipe },
  ],
})
export class AppModule {}
