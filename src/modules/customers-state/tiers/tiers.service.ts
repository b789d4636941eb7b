import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../../common/clock.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { OwnedWrites, UNCHANGED } from '../../../common/database/owned-writes.js';
import { uniqueViolation } from '../../../common/database/unique-violation.js';
import { AppError, ErrorDetail } from '../../../common/errors/app-error.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { timestampsView } from '../../../common/http/timestamps.js';
import { Tier } from '../../../database/entities/index.js';
import { ConfigChangesService } from '../../audit/index.js';
import type { CreateTierInput, TierView, UpdateTierInput } from './dto/tier.dto.js';
import { findOwned } from '../../../common/database/find-owned.js';

/** Advisory lock class for an organization's tier writes: the min_points check and the write are one step. */
const TIERS_LOCK = 7401;

const UNIQUE = uniqueViolation({ tiers_name: { field: 'tier.name', message: 'is already used by another tier of this organization' } });

/** The qualifying points that keep the tier at a review: its own, or its min_points (contract §17). */
export function retainPointsOf(t: Tier): number {
  return t.retainPoints ?? t.minPoints;
}

export function tierView(t: Tier): TierView {
  return {
    id: t.id,
    name: t.name,
    min_points: t.minPoints,
    retain_points: retainPointsOf(t),
    ...timestampsView(t),
  };
}

/** Tiers rank customers by lifetime points (contract §5). Names and min_points are unique among live tiers. */
@Injectable()
export class TiersService {
  private readonly writes = new OwnedWrites(this.db, this.changes, this.clock, { objectType: 'tier', view: tierView, unique: UNIQUE });

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly changes: ConfigChangesService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  create(tenant: Tenant, input: CreateTierInput): Promise<TierView> {
    return this.writes.create(tenant, async (em) => {
      await em.query(`SELECT pg_advisory_xact_lock($1, $2)`, [TIERS_LOCK, tenant.organizationId]);
      await this.assertFree(em, tenant, input.name, input.min_points, null);
      const retainPoints = input.retain_points ?? null;
      assertRetain(retainPoints, input.min_points);
      return em.create(Tier, { organizationId: tenant.organizationId, name: input.name, minPoints: input.min_points, retainPoints });
    });
  }

  async list(tenant: Tenant): Promise<TierView[]> {
    const tiers = await this.db.manager.find(Tier, { where: { organizationId: tenant.organizationId }, order: { minPoints: 'ASC', id: 'ASC' } });
    return tiers.map(tierView);
  }

  async get(tenant: Tenant, id: number): Promise<TierView> {
    return tierView(await this.find(this.db.manager, tenant, id));
  }

  /** Partial: only the members sent change. A request that changes nothing writes nothing. */
  update(tenant: Tenant, id: number, input: UpdateTierInput): Promise<TierView> {
    const lock = async (em: EntityManager) => {
      await em.query(`SELECT pg_advisory_xact_lock($1, $2)`, [TIERS_LOCK, tenant.organizationId]);
      return this.find(em, tenant, id, true);
    };
    return this.writes.update(tenant, lock, async (tier, em) => {
      const name = input.name ?? tier.name;
      const minPoints = input.min_points ?? tier.minPoints;
      const retainPoints = input.retain_points === undefined ? tier.retainPoints : input.retain_points;
      if (name === tier.name && minPoints === tier.minPoints && retainPoints === tier.retainPoints) return UNCHANGED;
      await this.assertFree(em, tenant, name, minPoints, tier.id);
      assertRetain(retainPoints, minPoints);
      if (name !== tier.name) await this.assertUnreferenced(em, tenant, tier, 'tier.name', 'cannot be changed');
      Object.assign(tier, { name, minPoints, retainPoints });
    });
  }

  /** Soft delete: the name gets a marker and is free again; customers keep the tier row and answer the marked name. */
  remove(tenant: Tenant, id: number): Promise<TierView> {
    return this.writes.remove(tenant, (em) => this.find(em, tenant, id, true), {
      check: (tier, em) => this.assertUnreferenced(em, tenant, tier, 'tier_id', 'cannot be deleted'),
    });
  }

  /** A live tier of the organization; `lock` holds it for the rest of the transaction. */
  private async find(em: EntityManager, tenant: Tenant, id: number, lock = false): Promise<Tier> {
    return findOwned(em, Tier, { id }, tenant.organizationId, 'tier', lock);
  }

  /** Every clash at once: the name (case-insensitive) and min_points of the other live tiers. */
  private async assertFree(em: EntityManager, tenant: Tenant, name: string, minPoints: number, selfId: number | null): Promise<void> {
    const clashes: Array<{ name: string; min_points: number }> = await em.query(
      `SELECT name, min_points FROM tiers
        WHERE organization_id = $1 AND deleted_at IS NULL AND id <> $2 AND (lower(name) = lower($3) OR min_points = $4)`,
      [tenant.organizationId, selfId ?? 0, name, minPoints],
    );
    const details: ErrorDetail[] = [];
    if (clashes.some((t) => t.name.toLowerCase() === name.toLowerCase())) {
      details.push({ field: 'tier.name', message: 'is already used by another tier of this organization' });
    }
    const samePoints = clashes.find((t) => t.min_points === minPoints);
    if (samePoints) details.push({ field: 'tier.min_points', message: `is already the min_points of tier "${samePoints.name}"` });
    if (details.length) throw new AppError('validation', details.map((d) => `${d.field} ${d.message}`).join('; '), details);
  }

  /** Tier outcomes name their tier: renaming or deleting a tier they name would silently stop them. */
  private async assertUnreferenced(em: EntityManager, tenant: Tenant, tier: Tier, field: string, verb: string): Promise<void> {
    const behaviors: Array<{ id: number; name: string }> = await em.query(
      `SELECT DISTINCT b.id, b.name FROM behaviors b
         CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(b.outcome_config) = 'array' THEN b.outcome_config ELSE '[]' END) o
        WHERE b.organization_id = $1 AND b.deleted_at IS NULL AND lower(o->'tier'->>'name') = lower($2)
        ORDER BY b.id LIMIT 10`,
      [tenant.organizationId, tier.name],
    );
    if (!behaviors.length) return;
    const names = behaviors.map((b) => `"${b.name}" (${b.id})`).join(', ');
    throw AppError.validation(field, `${verb}: the tier outcome of behaviors ${names} names this tier; change those behaviors first`);
  }
}

/** retain_points lies between 0 and min_points (contract §17). */
function assertRetain(retainPoints: number | null, minPoints: number): void {
  if (retainPoints !== null && retainPoints > minPoints) throw AppError.validation('tier.retain_points', `must be at most min_points (${minPoints})`);
}
