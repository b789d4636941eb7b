import { Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { LoggingModule } from './common/logging/logging.module.js';
import { ErrorFilter } from './common/errors/error.filter.js';
import { AppValidationPipe } from './common/validation/validation.pipe.js';
import { CoreModule } from './core.module.js';
import { AuditModule } from './modules/audit/audit.module.js';
import { BehaviorsModule } from './modules/campaigns/behaviors/behaviors.module.js';
import { CampaignsModule } from './modules/campaigns/campaigns.module.js';
import { LineItemsModule } from './modules/campaigns/line-items/line-items.module.js';
import { OffersModule } from './modules/campaigns/offers/offers.module.js';
import { RulesModule } from './modules/campaigns/rules/rules.module.js';
import { CreativesModule } from './modules/creatives/creatives.module.js';
import { TiersModule } from './modules/customers-state/tiers/tiers.module.js';
import { DivisionsModule } from './modules/tenancy/divisions/divisions.module.js';
import { CustomersStateModule } from './modules/customers-state/customers-state.module.js';
import { EventsModule } from './modules/events/events.module.js';
import { HealthModule } from './modules/health/health.module.js';
import { MetricsModule } from './modules/metrics/metrics.module.js';
import { SimulationsModule } from './modules/simulations/simulations.module.js';
import { AnalyticsModule } from './modules/analytics/analytics.module.js';
import { ExperimentsModule } from './modules/experiments/experiments.module.js';
import { DataRightsModule } from './modules/data-rights/data-rights.module.js';
import { SettingsModule } from './modules/settings/settings.module.js';
import { ExtensionsApiModule } from './modules/extensions/extensions-api.module.js';
import { PointsModule } from './modules/points/points.module.js';
import { DomainActionsModule } from './modules/domain-actions/domain-actions.module.js';
import { TenancyModule } from './modules/tenancy/tenancy.module.js';
import { WebhooksModule } from './modules/webhooks/webhooks.module.js';

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
