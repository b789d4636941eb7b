import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isDeepStrictEqual } from 'node:util';
import { DataSource, type EntityManager } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import type { Tenant } from '../../common/http/request-context.js';
import { Organization } from '../../database/entities/index.js';
import { tierPolicy } from '../../database/entities/tier-policy.js';
import { nextReviewAfter } from '../../engine/index.js';
import { ConfigChangesService } from '../audit/index.js';
import type { SettingsInput, SettingsView } from '../tenancy/index.js';
import { storedTierPolicy } from '../tenancy/index.js';
import { TierReviewsRepository } from '../customers-state/index.js';

const view = (o: Organization): SettingsView => ({ points_expire_after_days: o.pointsExpireAfterDays, tier_policy: o.tierPolicy });

/** The organization's settings (contract §13: points expiry; §17: the tier policy). */
@Injectable()
export class SettingsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly changes: ConfigChangesService,
    private readonly tierReviews: TierReviewsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async get(tenant: Tenant): Promise<SettingsView> {
    return view(await this.organization(this.db.manager, tenant));
  }

  /** Partial: the members sent change; a change is written to the audit log. */
  update(tenant: Tenant, input: SettingsInput): Promise<SettingsView> {
    return this.db.transaction(async (em) => {
      const organization = await this.organization(em, tenant, true);
      const before = view(organization);
      if (input.points_expire_after_days !== undefined) organization.pointsExpireAfterDays = input.points_expire_after_days;
      const policy = input.tier_policy ? storedTierPolicy(input.tier_policy) : organization.tierPolicy;
      const policyChanged = !isDeepStrictEqual(policy, organization.tierPolicy);
      if (policyChanged) {
        organization.tierPolicy = policy;
        organization.tierPolicyChangedAt = new Date(this.clock.now());
      }
      const after = view(organization);
      if (isDeepStrictEqual(before, after)) return before;
      await em.save(organization);
      if (policyChanged) await this.keepTiers(em, organization);
      await this.changes.record(em, tenant, { action: 'update', objectType: 'settings', objectId: tenant.organizationId, before, after });
      return after;
    });
  }

  /**
   * A policy change never lowers a tier by itself (§17): every customer keeps the tier they have (`tier_floor_id`) until
   * the first review after the change, which the review sweeper applies (`tier_review_at`; none under lifetime).
   */
  private async keepTiers(em: EntityManager, organization: Organization): Promise<void> {
    const at = organization.tierPolicyChangedAt!.getTime();
    const review = nextReviewAfter(tierPolicy(organization.tierPolicy), at, organization.timeZone);
    await this.tierReviews.keepTiersUntil(em, organization.id, review === null ? null : new Date(review));
  }

  private organization(em: EntityManager, tenant: Tenant, lock = false): Promise<Organization> {
    return em.findOneOrFail(Organization, { where: { id: tenant.organizationId }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
  }
}
