import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ownedRows } from '../../common/database/owned-lists.js';
import { OwnedWrites } from '../../common/database/owned-writes.js';
import { uniqueViolation } from '../../common/database/unique-violation.js';
import { AppError } from '../../common/errors/app-error.js';
import type { Tenant } from '../../common/http/request-context.js';
import { toDate } from '../../common/validation/validators.js';
import { Application, Behavior, Creative } from '../../database/entities/index.js';
import type { IssueAudienceCsv } from '../../database/entities/creative.entity.js';
import { ConfigChangesService } from '../audit/index.js';
import { LineItemsService } from '../campaigns/index.js';
import { CreativeGroupsService } from './creative-groups.service.js';
import { allowsCreativeType, CREATIVE_TYPES_BY_AD_TYPE, type AdType } from './creative-types.js';
import { creativeView, issueAudienceCsvView } from './creative.view.js';
import type { CreateCreativeInput, CreativeView, IssueAudienceCsvInput, UpdateCreativeInput } from './dto/creative.dto.js';
import { findOwned } from '../../common/database/find-owned.js';

const UNIQUE = uniqueViolation({
  creatives_one_per_group: { field: 'creative', message: 'cannot be added: a creative group holds at most one creative' },
});
const DELIVERY = 'creative.issue_audience_csv';

@Injectable()
export class CreativesService {
  private readonly writes = new OwnedWrites(this.db, this.changes, this.clock, { objectType: 'creative', view: creativeView, unique: UNIQUE });

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly changes: ConfigChangesService,
    private readonly lineItems: LineItemsService,
    private readonly groups: CreativeGroupsService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  create(tenant: Tenant, groupId: number, input: CreateCreativeInput): Promise<CreativeView> {
    return this.writes.create(tenant, async (em) => {
      const { group, lineItem } = await this.groups.findLocked(em, tenant, groupId);
      checkTypes(input.ad_type, input.creative_type);
      await this.checkApplication(em, tenant, input.application_id);
      const delivery = await this.delivery(em, tenant, lineItem.campaignId, input.issue_audience_csv);
      return em.create(Creative, {
        organizationId: tenant.organizationId,
        creativeGroupId: group.id,
        applicationId: input.application_id,
        name: input.name,
        status: input.status,
        adType: input.ad_type,
        creativeType: input.creative_type,
        message: input.message ?? null,
        url: input.url ?? null,
        payload: input.payload ?? null,
        issueAudienceCsv: delivery,
        behaviorId: delivery.behavior_id ?? null,
      });
    });
  }

  async list(tenant: Tenant, groupId: number): Promise<CreativeView[]> {
    const group = await this.groups.find(this.db.manager, tenant, groupId);
    const rows = await ownedRows(this.db.manager, Creative, { creativeGroupId: group.id }, tenant.organizationId);
    return rows.map(creativeView);
  }

  async get(tenant: Tenant, id: number): Promise<CreativeView> {
    return creativeView(await this.find(this.db.manager, tenant, id));
  }

  update(tenant: Tenant, id: number, input: UpdateCreativeInput): Promise<CreativeView> {
    return this.writes.update(tenant, (em) => this.find(em, tenant, id, true), async (creative, em) => {
      const adType = input.ad_type ?? creative.adType;
      const creativeType = input.creative_type ?? creative.creativeType;
      if (input.ad_type !== undefined || input.creative_type !== undefined) checkTypes(adType, creativeType);
      if (input.application_id !== undefined) await this.checkApplication(em, tenant, input.application_id);
      if (input.issue_audience_csv !== undefined) {
        const group = await this.groups.find(em, tenant, creative.creativeGroupId);
        const lineItem = await this.lineItems.find(em, tenant, group.lineItemId);
        creative.issueAudienceCsv = await this.delivery(em, tenant, lineItem.campaignId, input.issue_audience_csv);
        creative.behaviorId = creative.issueAudienceCsv.behavior_id ?? null;
      }
      Object.assign(creative, {
        adType,
        creativeType,
        name: input.name ?? creative.name,
        status: input.status ?? creative.status,
        applicationId: input.application_id ?? creative.applicationId,
        message: input.message ?? creative.message,
        url: input.url ?? creative.url,
        payload: input.payload ?? creative.payload,
      });
    });
  }

  /** Soft delete: the creative stops answering (and triggering); its name gets the marker. */
  remove(tenant: Tenant, id: number): Promise<CreativeView> {
    return this.writes.remove(tenant, (em) => this.find(em, tenant, id, true));
  }

  /** A creative of the organization that is not deleted; `lock` holds it for the rest of the transaction. */
  async find(em: EntityManager, tenant: Tenant, id: number, lock = false): Promise<Creative> {
    return findOwned(em, Creative, { id }, tenant.organizationId, 'creative', lock);
  }

  private async checkApplication(em: EntityManager, tenant: Tenant, applicationId: number): Promise<void> {
    if (!(await em.existsBy(Application, { id: applicationId, organizationId: tenant.organizationId }))) {
      throw AppError.validation('creative.application_id', 'is not an application of this organization');
    }
  }

  /**
   * The delivery settings to store. Triggered: behavior_id names a behavior of the group's campaign (no date).
   * Scheduled: scheduled_delivery_date in the future (no behavior). The audience job is scheduled by
   * AudienceScheduleService, which every recorded change of a creative or its parents reconciles.
   */
  private async delivery(em: EntityManager, tenant: Tenant, campaignId: number, input: IssueAudienceCsvInput): Promise<IssueAudienceCsv> {
    const missing = (member: string, method: string) =>
      new AppError('missing_data', `missing ${DELIVERY}.${member} (required for ${method} delivery)`, [
        { field: `${DELIVERY}.${member}`, message: `is required for ${method} delivery` },
      ]);
    let scheduledAt: string | null = null;
    if (input.delivery_method === 'triggered') {
      if (input.scheduled_delivery_date !== undefined) throw AppError.validation(`${DELIVERY}.scheduled_delivery_date`, 'is only for scheduled delivery');
      if (input.behavior_id === undefined) throw missing('behavior_id', 'triggered');
      const found = await em.existsBy(Behavior, { id: input.behavior_id, campaignId, organizationId: tenant.organizationId });
      if (!found) throw AppError.validation(`${DELIVERY}.behavior_id`, "is not a behavior of the creative's campaign");
    } else {
      if (input.behavior_id !== undefined) throw AppError.validation(`${DELIVERY}.behavior_id`, 'is only for triggered delivery');
      if (input.scheduled_delivery_date === undefined) throw missing('scheduled_delivery_date', 'scheduled');
      const at = toDate(input.scheduled_delivery_date);
      if (at.getTime() <= this.clock.now()) throw AppError.validation(`${DELIVERY}.scheduled_delivery_date`, 'must be in the future');
      scheduledAt = at.toISOString();
    }
    return {
      ...issueAudienceCsvView({ delivery_method: input.delivery_method }),
      scheduled_delivery_date: scheduledAt,
      template_id: input.template_id ?? null,
      behavior_id: input.behavior_id ?? null,
    };
  }
}

function checkTypes(adType: string, creativeType: string): void {
  if (!allowsCreativeType(adType, creativeType)) {
    const allowed = CREATIVE_TYPES_BY_AD_TYPE[adType as AdType] ?? [];
    throw AppError.validation('creative.creative_type', `must be ${allowed.join(' or ')} for ad_type ${adType}`);
  }
}
