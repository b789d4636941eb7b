import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { Tenant } from '../../../common/http/request-context.js';
import { Organization } from '../../../database/entities/index.js';
import { ConfigChangesService } from '../../audit/config-changes.service.js';
import type { SettingsInput, SettingsView } from './dto/settings.dto.js';

const view = (o: Organization): SettingsView => ({ points_expire_after_days: o.pointsExpireAfterDays });

/** The organization's settings (contract §13: points expiry). */
@Injectable()
export class SettingsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly changes: ConfigChangesService,
  ) {}

  async get(tenant: Tenant): Promise<SettingsView> {
    return view(await this.organization(this.db.manager, tenant));
  }

  /** Partial: the members sent change; a change is written to the audit log. */
  update(tenant: Tenant, input: SettingsInput): Promise<SettingsView> {
    return this.db.transaction(async (em) => {
      const organization = await this.organization(em, tenant, true);
      const before = view(organization);
      if (input.points_expire_after_days === undefined || input.points_expire_after_days === before.points_expire_after_days) return before;
      organization.pointsExpireAfterDays = input.points_expire_after_days;
      await em.save(organization);
      const after = view(organization);
      await this.changes.record(em, tenant, { action: 'update', objectType: 'settings', objectId: tenant.organizationId, before, after });
      return after;
    });
  }

  private organization(em: EntityManager, tenant: Tenant, lock = false): Promise<Organization> {
    return em.findOneOrFail(Organization, { where: { id: tenant.organizationId }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
  }
}
