import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { pacedBatches, PeriodicSweep } from '../../common/scheduling/periodic-sweep.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { customerTierStanding, periodMove, tierDirection, tierName, type CompiledRules } from '../../engine/index.js';
import { RulesCacheService } from '../campaigns/index.js';
import { AfterCommit } from './after-commit.js';
import { CustomerTransactions } from './customer-transactions.js';
import { TierReviewsRepository, type DueCustomer, type ReviewedCustomer } from '../customers-state/index.js';

/** Customers one transaction reviews at most: their rows are locked briefly, and its WAL is small. */
export const REVIEW_BATCH = 500;

/**
 * Contract §17: a customer's tier review (the end of a qualification period plus its grace days) is written within 60
 * seconds of taking effect: the tier, its history and `tier.changed`. Reads answer the reviewed tier before that (they
 * compute the standing). Every 5 seconds one worker process at a time (the sweep's advisory lock) takes the customers
 * whose `tier_review_at` has passed, in batches of REVIEW_BATCH that skip customers an evaluation holds, at most
 * TIER_REVIEW_RATE a second, so that a year end's million reviews do not take evaluations' latency with them. A batch
 * commits its customers' tiers, next review times, history and webhooks together: a killed worker leaves the batch to
 * the next sweep, and a review is written once (tier_history_review).
 */
@Injectable()
export class TierReviewSweeper extends PeriodicSweep {
  constructor(
    @InjectDataSource() db: DataSource,
    private readonly transactions: CustomerTransactions,
    private readonly rules: RulesCacheService,
    private readonly afterCommit: AfterCommit,
    private readonly reviews: TierReviewsRepository,
    @Inject(LOGGER) logger: Logger,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super(db, logger, 7_700_017, 'tier review');
  }

  /** Batches until no review is due (or every due customer is busy), or the sweep's time is up; answers the customers reviewed. */
  protected async sweepLocked(): Promise<number> {
    let moved = 0;
    const reviewed = await pacedBatches(this.config.tierReviewRate, async () => {
      const batch = await this.transactions.run(null, async (tx) => {
        const now = this.clock.now();
        const due = await this.reviews.lockDue(tx.uow, new Date(now).toISOString(), REVIEW_BATCH);
        const decided = await this.decide(due, now);
        const written = due.length ? await tx.commitWith(this.reviews.write(tx.uow, decided, new Date(now).toISOString())) : { moved: 0, deliveryIds: [] };
        return { customers: due.length, ...written };
      });
      void this.afterCommit.run(batch, {});
      moved += batch.moved;
      return { items: batch.customers, last: batch.customers < REVIEW_BATCH };
    });
    if (reviewed > 0) this.logger.info({ customers: reviewed, moved }, 'tier reviews applied');
    return reviewed;
  }

  /** Each customer's standing now under their organization's rules: the tier, the next review, and the move if any. */
  private async decide(due: DueCustomer[], now: number): Promise<ReviewedCustomer[]> {
    const rules = new Map<number, CompiledRules>();
    for (const org of new Set(due.map((c) => c.organizationId))) rules.set(org, await this.rules.get(org));
    return due.map((customer) => review(rules.get(customer.organizationId)!, customer, now));
  }
}

/** One customer's review under the rules (a policy changed back to lifetime since the review was set: nothing is due). */
export function review(rules: CompiledRules, customer: DueCustomer, now: number): ReviewedCustomer {
  if (rules.tierRules.policy.basis === 'lifetime') return { id: customer.id, tier_id: customer.tierId, tier_review_at: null, move: null };
  const standing = customerTierStanding(rules, { tierFacts: customer.facts, tierFloorId: customer.tierFloorId }, now);
  const reviewAt = standing.tierId === null || standing.reviewAt === null ? null : new Date(standing.reviewAt).toISOString();
  if (standing.tierId === customer.tierId) return { id: customer.id, tier_id: customer.tierId, tier_review_at: reviewAt, move: null };
  const { reason, at } = periodMove(rules, customer.tierId, standing, now, 'review');
  return {
    id: customer.id,
    tier_id: standing.tierId,
    tier_review_at: reviewAt,
    move: {
      from_tier_id: customer.tierId,
      from_name: tierName(rules, customer.tierId),
      to_tier_id: standing.tierId,
      to_name: tierName(rules, standing.tierId),
      direction: tierDirection(rules, customer.tierId, standing.tierId),
      reason,
      // A review's own time (its history row is unique by it); any other move (credits reversed) happens now.
      at: new Date(at).toISOString(),
    },
  };
}
