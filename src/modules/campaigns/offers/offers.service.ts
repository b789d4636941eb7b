import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../../common/clock.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { softDelete } from '../../../common/database/soft-delete.js';
import { uniqueViolation } from '../../../common/database/unique-violation.js';
import { pageWindow, PageQuery } from '../../../common/http/pagination.dto.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { Offer } from '../../../database/entities/index.js';
import { ConfigChangesService } from '../../audit/config-changes.service.js';
import type { CreateOfferInput, OfferListResponse, OfferView, UpdateOfferInput } from './dto/offer.dto.js';
import { findOwned } from '../../../common/database/find-owned.js';

const UNIQUE = uniqueViolation({
  offers_name: { field: 'offer.name', message: 'is already used by another offer of this organization' },
});

export function offerView(o: Offer): OfferView {
  return {
    id: o.id,
    name: o.name,
    points: o.points,
    description: o.description,
    created_at: o.createdAt.toISOString(),
    updated_at: o.updatedAt.toISOString(),
    ...(o.deletedAt ? { deleted_at: o.deletedAt.toISOString() } : {}),
  };
}

@Injectable()
export class OffersService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly changes: ConfigChangesService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  create(tenant: Tenant, input: CreateOfferInput): Promise<OfferView> {
    return this.db.transaction(async (em) => {
      const offer = em.create(Offer, {
        organizationId: tenant.organizationId,
        name: input.name,
        points: input.points ?? 0,
        description: input.description ?? null,
      });
      await em.save(offer).catch(UNIQUE);
      const after = offerView(offer);
      await this.changes.record(em, tenant, { action: 'create', objectType: 'offer', objectId: offer.id, after });
      return after;
    });
  }

  async list(tenant: Tenant, query: PageQuery): Promise<OfferListResponse> {
    const [rows, total] = await this.db.manager.findAndCount(Offer, {
      where: { organizationId: tenant.organizationId },
      order: { id: 'ASC' },
      ...pageWindow(query),
    });
    return { status: 'ok', offers: rows.map(offerView), page: query.page, limit: query.limit, total };
  }

  async get(tenant: Tenant, id: number): Promise<OfferView> {
    return offerView(await this.find(this.db.manager, tenant, id));
  }

  update(tenant: Tenant, id: number, input: UpdateOfferInput): Promise<OfferView> {
    return this.db.transaction(async (em) => {
      const offer = await this.find(em, tenant, id, true);
      const before = offerView(offer);
      if (input.name !== undefined) offer.name = input.name;
      if (input.points !== undefined) offer.points = input.points;
      if (input.description !== undefined) offer.description = input.description;
      await em.save(offer).catch(UNIQUE);
      const after = offerView(offer);
      await this.changes.record(em, tenant, { action: 'update', objectType: 'offer', objectId: offer.id, before, after });
      return after;
    });
  }

  /** Soft delete: the offer stops answering and is no longer issued; its name is freed with a marker. */
  remove(tenant: Tenant, id: number): Promise<OfferView> {
    return this.db.transaction(async (em) => {
      const offer = await this.find(em, tenant, id, true);
      const before = offerView(offer);
      const at = new Date(this.clock.now());
      await softDelete(em, offer, at);
      const after = offerView(offer);
      await this.changes.record(em, tenant, { action: 'delete', objectType: 'offer', objectId: offer.id, before, after });
      return after;
    });
  }

  private async find(em: EntityManager, tenant: Tenant, id: number, lock = false): Promise<Offer> {
    return findOwned(em, Offer, { id }, tenant.organizationId, 'offer', lock);
  }
}
