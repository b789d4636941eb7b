/** The tenancy module's face: what other modules may import of it. */
export { checkAdminToken } from './admin-token.js';
export { DivisionsModule } from './divisions/divisions.module.js';
export { holdLiveDivision } from './divisions/hold-division.js';
export { CreateOrganizationBody } from './dto/bootstrap.dto.js';
export { SettingsBody, SettingsResponse } from './dto/settings.dto.js';
export type { SettingsInput, SettingsView } from './dto/settings.dto.js';
export { storedTierPolicy, TIER_POLICY_DESCRIPTION, TierPolicyInput } from './dto/tier-policy.dto.js';
export { TenancyModule } from './tenancy.module.js';
export { TenancyService } from './tenancy.service.js';
