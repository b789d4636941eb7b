import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../../common/clock.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ownedPage } from '../../../common/database/owned-lists.js';
import { OwnedWrites } from '../../../common/database/owned-writes.js';
import { uniqueViolation } from '../../../common/database/unique-violation.js';
import type { PageQuery } from '../../../common/http/pagination.dto.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { timestampsView } from '../../../common/http/timestamps.js';
import { Offer } from '../../../database/entities/index.js';
import { ConfigChangesService } from '../../audit/index.js';
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
    ...timestampsView(o),
  };
}

@Injectable()
export class OffersService {
  private readonly writes = new OwnedWrites(this.db, this.changes, this.clock, { objectType: 'offer', view: offerView, unique: UNIQUE });

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly changes: ConfigChangesService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  create(tenant: Tenant, input: CreateOfferInput): Promise<OfferView> {
    return this.writes.create(tenant, async (em) =>
      em.create(Offer, { organizationId: tenant.organizationId, name: input.name, points: input.points ?? 0, description: input.description ?? null }),
    );
  }

  async list(tenant: Tenant, query: PageQuery): Promise<OfferListResponse> {
    const { rows, ...page } = await ownedPage(this.db.manager, Offer, tenant.organizationId, query);
    return { status: 'ok', offers: rows.map(offerView), ...page };
  }

  async get(tenant: Tenant, id: number): Promise<OfferView> {
    return offerView(await this.find(this.db.manager, tenant, id));
  }

  update(tenant: Tenant, id: number, input: UpdateOfferInput): Promise<OfferView> {
    return this.writes.update(tenant, (em) => this.find(em, tenant, id, true), (offer) => {
      if (input.name !== undefined) offer.name = input.name;
      if (input.points !== undefined) offer.points = input.points;
      if (input.description !== undefined) offer.description = input.description;
    });
  }

  /** Soft delete: the offer stops answering and is no longer issued; its name is freed with a marker. */
  remove(tenant: Tenant, id: number): Promise<OfferView> {
    return this.writes.remove(tenant, (em) => this.find(em, tenant, id, true));
  }

  private async find(em: EntityManager, tenant: Tenant, id: number, lock = false): Promise<Offer> {
    return findOwned(em, Offer, { id }, tenant.organizationId, 'offer', lock);
  }
}
