import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../../common/clock.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ownedRows } from '../../../common/database/owned-lists.js';
import { OwnedWrites } from '../../../common/database/owned-writes.js';
import { uniqueViolation } from '../../../common/database/unique-violation.js';
import { AppError } from '../../../common/errors/app-error.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { toDate } from '../../../common/validation/validators.js';
import { Campaign, LineItem } from '../../../database/entities/index.js';
import { ConfigChangesService } from '../../audit/index.js';
import { CampaignsService } from '../campaigns.service.js';
import type { CreateLineItemInput, LineItemView, UpdateLineItemInput } from './dto/line-item.dto.js';
import { lineItemView } from './line-item.view.js';
import { findOwned } from '../../../common/database/find-owned.js';

const UNIQUE = uniqueViolation({
  line_items_one_per_campaign: { field: 'line_item', message: 'cannot be added: a campaign holds at most one line item' },
});

/** Start and end of a write (each the stored value when absent); the end must come after the start. */
export function datesInOrder(
  wrapper: string,
  input: { starts_at?: string; ends_at?: string },
  current?: { startsAt: Date; endsAt: Date },
): { startsAt: Date; endsAt: Date } {
  const startsAt = input.starts_at !== undefined ? toDate(input.starts_at) : current?.startsAt;
  const endsAt = input.ends_at !== undefined ? toDate(input.ends_at) : current?.endsAt;
  if (!startsAt || !endsAt || endsAt <= startsAt) throw AppError.validation(`${wrapper}.ends_at`, `must be after ${wrapper}.starts_at`);
  return { startsAt, endsAt };
}

@Injectable()
export class LineItemsService {
  private readonly writes = new OwnedWrites(this.db, this.changes, this.clock, { objectType: 'line_item', view: lineItemView, unique: UNIQUE });

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly changes: ConfigChangesService,
    private readonly campaigns: CampaignsService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  create(tenant: Tenant, campaignId: number, input: CreateLineItemInput): Promise<LineItemView> {
    return this.writes.create(tenant, async (em) => {
      const campaign = await this.campaigns.find(em, tenant, { id: campaignId }, true);
      return em.create(LineItem, {
        organizationId: tenant.organizationId,
        campaignId: campaign.id,
        name: input.name,
        displayName: input.display_name ?? null,
        description: input.description ?? null,
        status: input.status,
        ...datesInOrder('line_item', input),
      });
    });
  }

  async list(tenant: Tenant, campaignId: number): Promise<LineItemView[]> {
    const campaign = await this.campaigns.find(this.db.manager, tenant, { id: campaignId });
    const rows = await ownedRows(this.db.manager, LineItem, { campaignId: campaign.id }, tenant.organizationId);
    return rows.map(lineItemView);
  }

  async get(tenant: Tenant, id: number): Promise<LineItemView> {
    return lineItemView(await this.find(this.db.manager, tenant, id));
  }

  update(tenant: Tenant, id: number, input: UpdateLineItemInput): Promise<LineItemView> {
    return this.writes.update(tenant, (em) => this.find(em, tenant, id, true), (lineItem) => {
      Object.assign(lineItem, datesInOrder('line_item', input, lineItem), {
        name: input.name ?? lineItem.name,
        displayName: input.display_name ?? lineItem.displayName,
        description: input.description ?? lineItem.description,
        status: input.status ?? lineItem.status,
      });
    });
  }

  /** Soft delete: the line item, its creative groups and their creatives stop answering; names get the marker. */
  remove(tenant: Tenant, id: number): Promise<LineItemView> {
    return this.writes.remove(tenant, (em) => this.findLocked(em, tenant, id), { below: 'line_item' });
  }

  /** A line item of the organization that is not deleted; `lock` holds it for the rest of the transaction. */
  async find(em: EntityManager, tenant: Tenant, id: number, lock = false): Promise<LineItem> {
    return findOwned(em, LineItem, { id }, tenant.organizationId, 'line item', lock);
  }

  /**
   * The line item, locked after its campaign. Every create below a campaign and every cascading delete takes the
   * campaign's row lock first (as a campaign delete does), so a concurrent delete can neither miss a new child nor
   * deadlock with another cascade.
   */
  async findLocked(em: EntityManager, tenant: Tenant, id: number): Promise<LineItem> {
    const { campaignId } = await this.find(em, tenant, id);
    const campaign = await em.findOne(Campaign, {
      where: { id: campaignId, organizationId: tenant.organizationId },
      lock: { mode: 'pessimistic_write' },
    });
    if (!campaign) throw AppError.notFound('line item');
    return this.find(em, tenant, id, true);
  }
}
