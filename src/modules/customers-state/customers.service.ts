import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull, LessThanOrEqual, MoreThan } from 'typeorm';
import { uniqueViolation } from '../../common/database/unique-violation.js';
import { AppError } from '../../common/errors/app-error.js';
import { PageQuery, pageWindow } from '../../common/http/pagination.dto.js';
import type { Tenant } from '../../common/http/request-context.js';
import { Customer, EventRecord, Tier } from '../../database/entities/index.js';
import { holdLiveDivision } from '../tenancy/index.js';
import type { CreateUserInput, NotificationsResponse, TimelineResponse, UpdateUserInput, UserView } from './dto/user.dto.js';
import type { TierHistoryResponse, TierStandingView } from './dto/tier-standing.dto.js';
import { tierHistoryPage } from './tiers/tier-history.repository.js';
import { retainPointsOf } from './tiers/tiers.service.js';
import { TierStandings, type PeriodStanding } from './tiers/tier-standings.js';
import type { CompiledRules, RankedTier } from '../../engine/index.js';
import { CustomerExperiments } from './customer-experiments.repository.js';
import { NotificationsService } from './notifications.service.js';
import { UUID } from '../../common/validation/uuid.js';
import { EVALUATION_FAILED } from '../../database/entities/event.entity.js';


const DUPLICATE_EXTERNAL_ID = uniqueViolation({
  customers_external_id: { field: 'user.external_id', message: 'is already used by another customer of this organization' },
});

/** How a route names a customer: by the service's id or by the organization's external id. */
export type CustomerRef = { userId: string } | { externalId: string };

/** The customer profile interface: create, read, update, and the timeline of a customer's events. */
@Injectable()
export class CustomersService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly notifications: NotificationsService,
    private readonly standings: TierStandings,
    private readonly experiments: CustomerExperiments,
  ) {}

  async create(tenant: Tenant, input: CreateUserInput): Promise<UserView> {
    const divisionId = input.division_id ?? tenant.rootDivisionId;
    const customer = this.db.manager.create(Customer, {
      organizationId: tenant.organizationId,
      externalId: input.external_id,
      timeZone: input.time_zone ?? tenant.timeZone,
      divisionId,
      tags: unique(input.tags ?? []),
      attributes: input.attributes ?? {},
    });
    await this.db.transaction(async (em) => {
      await this.assertDivision(em, tenant, divisionId);
      await em.insert(Customer, customer).catch(DUPLICATE_EXTERNAL_ID);
    });
    return this.get(tenant, { userId: customer.id });
  }

  async get(tenant: Tenant, ref: CustomerRef): Promise<UserView> {
    return this.view(await this.find(tenant, ref));
  }

  /**
   * The customer's tier standing (contract §17). Under `lifetime` (§5) qualifying points are the lifetime points, and
   * there is no period or review; under `period`, the standing of the running period as of now.
   */
  async tier(tenant: Tenant, ref: CustomerRef): Promise<TierStandingView> {
    const customer = await this.find(tenant, ref);
    const period = await this.standings.of(customer);
    if (period) return periodView(period);
    const tier = await this.effectiveTier(customer);
    const points = customer.lifetimePoints;
    const next = await this.db.manager.findOne(Tier, {
      where: { organizationId: customer.organizationId, minPoints: MoreThan(tier?.minPoints ?? -1) },
      order: { minPoints: 'ASC', id: 'ASC' },
    });
    return {
      tier: tier ? { id: tier.id, name: tier.name } : null,
      basis: 'lifetime',
      period: null,
      qualifying_points: points,
      retain_points: tier ? retainPointsOf(tier) : null,
      next_tier: next ? { id: next.id, name: next.name, min_points: next.minPoints, points_needed: Math.max(0, next.minPoints - points) } : null,
      review_at: null,
      tier_after_review: null,
    };
  }

  /** A page of the customer's tier moves, newest first (contract §17). */
  async tierHistory(tenant: Tenant, ref: CustomerRef, query: PageQuery): Promise<TierHistoryResponse> {
    const customer = await this.find(tenant, ref);
    const { take, skip } = pageWindow(query);
    const { entries, total } = await tierHistoryPage(this.db, customer.id, { limit: take, offset: skip });
    return { status: 'ok', history: entries, page: query.page, limit: query.limit, total };
  }

  async update(tenant: Tenant, ref: CustomerRef, input: UpdateUserInput): Promise<UserView> {
    const customer = await this.find(tenant, ref);
    // Only the profile columns the body names: points and tier are written by event processing, never here.
    const patch: Partial<Customer> = {};
    if (input.external_id !== undefined) patch.externalId = input.external_id;
    if (input.time_zone !== undefined) patch.timeZone = input.time_zone;
    if (input.division_id !== undefined) patch.divisionId = input.division_id;
    if (input.tags !== undefined) patch.tags = unique(input.tags);
    if (input.attributes !== undefined) patch.attributes = input.attributes;
    if (Object.keys(patch).length > 0) {
      await this.db.transaction(async (em) => {
        if (input.division_id !== undefined) await this.assertDivision(em, tenant, input.division_id);
        await em.update(Customer, { id: customer.id, organizationId: tenant.organizationId }, patch).catch(DUPLICATE_EXTERNAL_ID);
      });
    }
    return this.get(tenant, { userId: customer.id });
  }

  async timeline(tenant: Tenant, ref: CustomerRef, query: PageQuery): Promise<TimelineResponse> {
    const customer = await this.find(tenant, ref);
    const [events, total] = await this.db.manager.findAndCount(EventRecord, {
      where: { customerId: customer.id, organizationId: tenant.organizationId },
      order: { occurredAt: 'DESC', id: 'DESC' },
      ...pageWindow(query),
    });
    const notifications = await this.notifications.ofEvents(tenant.organizationId, customer.id, events.map((e) => e.id));
    return {
      status: 'ok',
      events: events.map((e) => ({
        id: e.id,
        name: e.name,
        occurred_at: e.occurredAt.toISOString(),
        division_id: e.divisionId,
        status: e.status,
        reason: e.status === 'failed' ? EVALUATION_FAILED : e.reason,
        points_earned: e.pointsEarned,
        source: e.source,
        transaction_id: e.transactionId,
        notifications: notifications.get(e.id) ?? [],
      })),
      page: query.page,
      limit: query.limit,
      total,
    };
  }

  /** A page of the customer's stored notifications, newest first (contract §11). */
  async notificationsOf(tenant: Tenant, ref: CustomerRef, query: PageQuery): Promise<NotificationsResponse> {
    const customer = await this.find(tenant, ref);
    return { status: 'ok', notifications: await this.notifications.ofCustomer(tenant.organizationId, customer.id, query) };
  }

  async find(tenant: Tenant, ref: CustomerRef): Promise<Customer> {
    if ('userId' in ref && !UUID.test(ref.userId)) throw AppError.notFound('user');
    const where = 'userId' in ref ? { id: ref.userId } : { externalId: ref.externalId };
    const customer = await this.db.manager.findOneBy(Customer, { ...where, organizationId: tenant.organizationId, erasedAt: IsNull() });
    if (!customer) throw AppError.notFound('user');
    return customer;
  }

  /**
   * The customer's tier (contract §5): the stored one (tiers are never lowered), or the highest tier its lifetime
   * points have reached if that ranks higher (a tier created after the points were earned).
   */
  private async effectiveTier(customer: Customer): Promise<Tier | null> {
    const stored = customer.tierId ? await this.db.manager.findOne(Tier, { where: { id: customer.tierId }, withDeleted: true }) : null;
    const earned = await this.db.manager.findOne(Tier, {
      where: { organizationId: customer.organizationId, minPoints: LessThanOrEqual(customer.lifetimePoints) },
      order: { minPoints: 'DESC', id: 'DESC' },
    });
    return earned && (!stored || earned.minPoints > stored.minPoints) ? earned : stored;
  }

  private async assertDivision(em: EntityManager, tenant: Tenant, divisionId: number): Promise<void> {
    if (!(await holdLiveDivision(em, tenant.organizationId, divisionId))) throw AppError.validation('user.division_id', 'is not a division of this organization');
  }

  private async view(customer: Customer): Promise<UserView> {
    const period = await this.standings.of(customer);
    const tier = period ? tierOf(period.rules, period.standing.tierId) : await this.effectiveTier(customer);
    return {
      id: customer.id,
      external_id: customer.externalId,
      time_zone: customer.timeZone,
      division_id: customer.divisionId,
      tags: customer.tags,
      attributes: customer.attributes,
      available_points: customer.availablePoints,
      lifetime_points: customer.lifetimePoints,
      tier: tier?.name ?? null,
      experiments: await this.experiments.of(customer.id),
      created_at: customer.createdAt.toISOString(),
      updated_at: customer.updatedAt.toISOString(),
    };
  }
}

function tierOf(rules: CompiledRules, tierId: number | null): RankedTier | null {
  return rules.rankedTiers.find((t) => t.id === tierId) ?? null;
}

/** The tier route's answer under a period policy. */
function periodView({ rules, standing }: PeriodStanding): TierStandingView {
  const ref = (tierId: number | null) => {
    const t = tierOf(rules, tierId);
    return t ? { id: t.id, name: t.name } : null;
  };
  const tier = tierOf(rules, standing.tierId);
  const next = rules.rankedTiers[rules.rankedTiers.findIndex((t) => t.id === standing.tierId) + 1] ?? null;
  const points = standing.qualifyingPoints;
  return {
    tier: ref(standing.tierId),
    basis: 'period',
    period: standing.period && { starts_at: new Date(standing.period.start).toISOString(), ends_at: new Date(standing.period.end).toISOString() },
    qualifying_points: points,
    retain_points: tier ? tier.retainPoints : null,
    next_tier: next ? { id: next.id, name: next.name, min_points: next.minPoints, points_needed: Math.max(0, next.minPoints - points) } : null,
    review_at: standing.reviewAt === null ? null : new Date(standing.reviewAt).toISOString(),
    tier_after_review: ref(standing.tierAfterReview),
  };
}

function unique(tags: string[]): string[] {
  return [...new Set(tags)];
}

