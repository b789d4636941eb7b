import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AppError } from '../../common/errors/app-error.js';
import { ApiKey, Application, Division, Organization } from '../../database/entities/index.js';
import type { BootstrapResponse, CredentialsResponse, CreateOrganizationBody } from './dto/bootstrap.dto.js';
import { LIFETIME_POLICY } from '../../database/entities/tier-policy.js';
import { storedTierPolicy } from './dto/tier-policy.dto.js';
import { hashSecret, newApiKey, newSecret } from './secrets.js';

/** Creates organizations (with their root division) and applications, each with a fresh api key and secret. */
@Injectable()
export class TenancyService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async createOrganization(input: CreateOrganizationBody): Promise<BootstrapResponse> {
    return this.db.transaction(async (em) => {
      const organization = await em.save(
        em.create(Organization, {
          name: input.organization.name,
          multiOrgEnabled: input.organization.multi_org_enabled ?? false,
          timeZone: input.organization.time_zone ?? 'UTC',
          pointsExpireAfterDays: input.organization.points_expire_after_days ?? null,
          tierPolicy: input.organization.tier_policy ? storedTierPolicy(input.organization.tier_policy) : LIFETIME_POLICY,
        }),
      );
      const root = await em.save(em.create(Division, { organizationId: organization.id, parentId: null, name: 'Root', ancestorIds: [] }));
      await em.update(Division, root.id, { ancestorIds: [root.id] });
      const credentials = await this.addApplication(em, organization.id, input.application.name);
      return {
        status: 'ok',
        organization: {
          id: organization.id,
          name: organization.name,
          multi_org_enabled: organization.multiOrgEnabled,
          time_zone: organization.timeZone,
          points_expire_after_days: organization.pointsExpireAfterDays,
          tier_policy: organization.tierPolicy,
          root_division_id: root.id,
        },
        application: credentials.application,
        api_key: credentials.api_key,
        api_secret: credentials.api_secret,
      };
    });
  }

  async createApplication(organizationId: number, name: string): Promise<CredentialsResponse> {
    return this.db.transaction(async (em) => {
      const organization = await em.findOneBy(Organization, { id: organizationId });
      if (!organization) throw AppError.notFound('organization');
      return this.addApplication(em, organizationId, name);
    });
  }

  private async addApplication(em: EntityManager, organizationId: number, name: string): Promise<CredentialsResponse> {
    const application = await em.save(em.create(Application, { organizationId, name }));
    const apiKey = newApiKey();
    const apiSecret = newSecret();
    await em.save(
      em.create(ApiKey, { organizationId, applicationId: application.id, key: apiKey, secretHash: await hashSecret(apiSecret), active: true }),
    );
    return { status: 'ok', application: { id: application.id, name: application.name }, api_key: apiKey, api_secret: apiSecret };
  }
}
