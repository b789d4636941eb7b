import { AppError } from '../../common/errors/app-error.js';
import type { Tenant } from '../../common/http/request-context.js';
import type { CompiledRules, EventInstance } from '../../engine/index.js';

/** How a V1 path names a campaign. */
export type CampaignKey = { id: number } | { permalink: string };

/** The live campaign a V1 path names, in the compiled rules (which hold only live campaigns); null when none. */
export function scopedCampaignIdOrNull(rules: CompiledRules, key: CampaignKey | null): number | null {
  if (key === null) return null;
  for (const campaign of rules.campaigns.values()) {
    if ('id' in key ? campaign.rule.id === key.id : campaign.rule.permalink === key.permalink) return campaign.rule.id;
  }
  return null;
}

/** The live campaign a V1 path names; 404 No_active_campaign_found when none does. */
export function scopedCampaignId(rules: CompiledRules, key: CampaignKey | null): number | null {
  const id = scopedCampaignIdOrNull(rules, key);
  if (key !== null && id === null) throw new AppError('No_active_campaign_found', 'no live campaign matches the request');
  return id;
}

/**
 * The division each instance belongs to: with multi-org on, context.division_id (which must be a division of the
 * organization: else 400 validation) or the root; with multi-org off, none (division_id is ignored).
 */
export function instanceDivisions(tenant: Tenant, rules: CompiledRules, instances: EventInstance[], fieldOf: (i: number) => string): Array<number | null> {
  if (!tenant.multiOrgEnabled) return instances.map(() => null);
  return instances.map((instance, i) => {
    const raw = instance.context.division_id;
    if (raw === undefined) return tenant.rootDivisionId;
    const id = Number(raw);
    if (!rules.divisionAncestors[id]) throw AppError.validation(fieldOf(i), 'is not a division of this organization');
    return id;
  });
}
