import { InitialSchema1763800000000 } from './1763800000000-initial-schema.js';
import { CampaignManagement1763900000000 } from './1763900000000-campaign-management.js';
import { EventOutcomes1764000000000 } from './1764000000000-event-outcomes.js';
import { EventQualifyBigintPoints1764100000000 } from './1764100000000-event-qualify-bigint-points.js';
import { EventLogSharedParentKeys1764200000000 } from './1764200000000-event-log-shared-parent-keys.js';
import { EventSourcePerform1764300000000 } from './1764300000000-event-source-perform.js';
import { Webhooks1764400000000 } from './1764400000000-webhooks.js';
import { AudienceJobs1764500000000 } from './1764500000000-audience-jobs.js';
import { CustomerIndexes1764600000000 } from './1764600000000-customer-indexes.js';
import { RejectedEventsIndex1764700000000 } from './1764700000000-rejected-events-index.js';
import { PartitionedEventLog1764800000000 } from './1764800000000-partitioned-event-log.js';
import { EventReferenceIndexes1764900000000 } from './1764900000000-event-reference-indexes.js';
import { PointsLedger1765000000000 } from './1765000000000-points-ledger.js';
import { EventsWithoutCustomerKey1765100000000 } from './1765100000000-events-without-customer-key.js';
import { CampaignBudgetCheck1765200000000 } from './1765200000000-campaign-budget-check.js';
import { Simulations1765300000000 } from './1765300000000-simulations.js';
import { RewardEffects1765400000000 } from './1765400000000-reward-effects.js';
import { TierQualification1765500000000 } from './1765500000000-tier-qualification.js';
import { TierRetainPoints1765600000000 } from './1765600000000-tier-retain-points.js';
import { TierPolicy1765700000000 } from './1765700000000-tier-policy.js';
import { LedgerBackfillIndex1765800000000 } from './1765800000000-ledger-backfill-index.js';
import { CampaignAnalytics1765900000000 } from './1765900000000-campaign-analytics.js';
import { Experiments1766000000000 } from './1766000000000-experiments.js';
import { Erasures1766100000000 } from './1766100000000-erasures.js';
import { RewardEffectsDeadIndex1766200000000 } from './1766200000000-reward-effects-dead-index.js';

/** Every migration, in order. Listed here (not globbed) so the same list runs from dist, tests and the CLI. */
export const migrations = [
  InitialSchema1763800000000,
  CampaignManagement1763900000000,
  EventOutcomes1764000000000,
  EventQualifyBigintPoints1764100000000,
  EventLogSharedParentKeys1764200000000,
  EventSourcePerform1764300000000,
  Webhooks1764400000000,
  AudienceJobs1764500000000,
  CustomerIndexes1764600000000,
  RejectedEventsIndex1764700000000,
  PartitionedEventLog1764800000000,
  EventReferenceIndexes1764900000000,
  PointsLedger1765000000000,
  EventsWithoutCustomerKey1765100000000,
  CampaignBudgetCheck1765200000000,
  Simulations1765300000000,
  RewardEffects1765400000000,
  TierQualification1765500000000,
  TierRetainPoints1765600000000,
  TierPolicy1765700000000,
  LedgerBackfillIndex1765800000000,
  CampaignAnalytics1765900000000,
  Experiments1766000000000,
  Erasures1766100000000,
  RewardEffectsDeadIndex1766200000000,
];
