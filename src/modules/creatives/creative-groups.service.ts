import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ownedRows } from '../../common/database/owned-lists.js';
import { OwnedWrites } from '../../common/database/owned-writes.js';
import type { Tenant } from '../../common/http/request-context.js';
import { CreativeGroup, LineItem } from '../../database/entities/index.js';
import { ConfigChangesService } from '../audit/index.js';
import { datesInOrder, LineItemsService } from '../campaigns/index.js';
import { creativeGroupView } from './creative-group.view.js';
import type { CreateCreativeGroupInput, CreativeGroupView, UpdateCreativeGroupInput } from './dto/creative-group.dto.js';
import { findOwned } from '../../common/database/find-owned.js';

@Injectable()
export class CreativeGroupsService {
  private readonly writes = new OwnedWrites(this.db, this.changes, this.clock, { objectType: 'creative_group', view: creativeGroupView });

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly changes: ConfigChangesService,
    private readonly lineItems: LineItemsService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  create(tenant: Tenant, lineItemId: number, input: CreateCreativeGroupInput): Promise<CreativeGroupView> {
    return this.writes.create(tenant, async (em) => {
      const lineItem = await this.lineItems.findLocked(em, tenant, lineItemId);
      return em.create(CreativeGroup, {
        organizationId: tenant.organizationId,
        lineItemId: lineItem.id,
        name: input.name,
        displayName: input.display_name ?? null,
        status: input.status,
        targeting: input.targeting ?? [],
        ...datesInOrder('creative_group', input),
      });
    });
  }

  async list(tenant: Tenant, lineItemId: number): Promise<CreativeGroupView[]> {
    const lineItem = await this.lineItems.find(this.db.manager, tenant, lineItemId);
    const rows = await ownedRows(this.db.manager, CreativeGroup, { lineItemId: lineItem.id }, tenant.organizationId);
    return rows.map(creativeGroupView);
  }

  async get(tenant: Tenant, id: number): Promise<CreativeGroupView> {
    return creativeGroupView(await this.find(this.db.manager, tenant, id));
  }

  update(tenant: Tenant, id: number, input: UpdateCreativeGroupInput): Promise<CreativeGroupView> {
    return this.writes.update(tenant, (em) => this.find(em, tenant, id, true), (group) => {
      Object.assign(group, datesInOrder('creative_group', input, group), {
        name: input.name ?? group.name,
        displayName: input.display_name ?? group.displayName,
        status: input.status ?? group.status,
        targeting: input.targeting ?? group.targeting,
      });
    });
  }

  /** Soft delete: the group and its creative stop answering; names get the marker. */
  remove(tenant: Tenant, id: number): Promise<CreativeGroupView> {
    return this.writes.remove(tenant, async (em) => (await this.findLocked(em, tenant, id)).group, { below: 'creative_group' });
  }

  /** A creative group of the organization that is not deleted; `lock` holds it for the rest of the transaction. */
  async find(em: EntityManager, tenant: Tenant, id: number, lock = false): Promise<CreativeGroup> {
    return findOwned(em, CreativeGroup, { id }, tenant.organizationId, 'creative group', lock);
  }

  /** The group with its line item, locked after their campaign (see LineItemsService.findLocked). */
  async findLocked(em: EntityManager, tenant: Tenant, id: number): Promise<{ group: CreativeGroup; lineItem: LineItem }> {
    const { lineItemId } = await this.find(em, tenant, id);
    const lineItem = await this.lineItems.findLocked(em, tenant, lineItemId);
    return { group: await this.find(em, tenant, id, true), lineItem };
  }
}
