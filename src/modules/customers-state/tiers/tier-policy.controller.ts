import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../../common/auth/api-key-auth.decorator.js';
import { ApiErrors } from '../../../common/http/api-errors.decorator.js';
import { CurrentTenant } from '../../../common/http/current-tenant.decorator.js';
import type { Tenant } from '../../../common/http/request-context.js';
import { TierPolicyPreviewBody, TierPolicyPreviewResponse, TierPreviewCounts } from './dto/tier-policy-preview.dto.js';
import { TierPolicyPreview } from './tier-policy-preview.js';

@ApiTags('management: tiers')
@ApiKeyAuth()
@ApiExtraModels(TierPreviewCounts)
@Controller('priv/v1/apps/:api_key/management/tier_policy')
export class TierPolicyController {
  constructor(private readonly previews: TierPolicyPreview) {}

  @Post('preview')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Preview a tier policy',
    description:
      "Before changing the settings' tier_policy (contract §17): for every customer of the organization, the tier they have now " +
      'against the tier the proposed policy would give them now had it always been in force, from their credits (not reversed) and ' +
      'tier outcomes by the time their events occurred, without the floor a policy change keeps until its first review. The tier now ' +
      'is the one reads answer (GET .../users/:user_id/tier): under lifetime the stored tier or the highest tier the lifetime points ' +
      'reach, whichever ranks higher; under a period policy the standing as of now, with the floor of the last policy change. ' +
      'Answers the counts by tier (every live tier and `none`, zeros included) and how many customers would move up, down or stay, ' +
      'tiers ranked by min_points. Nothing is written, and the settings are unchanged: send the policy to PUT .../management/settings ' +
      'to apply it. One consistent read of the organization (a snapshot): about 14 s for 1,000,000 customers with 20,000,000 ledger ' +
      'credits under a 12-month policy, more with short periods and one_level (docs/performance.md). ' +
      'Errors: 400 missing_data without the `tier_policy` wrapper or a member the basis requires (period: period_months, downgrade); ' +
      '400 argument_error for a member not listed; 400 validation naming the member for a value out of range (basis lifetime or ' +
      'period; period_months 1, 3, 6 or 12; downgrade one_level or to_qualified; grace_days an integer from 0 to 365; a period member ' +
      'under basis lifetime).',
  })
  @ApiOkResponse({ type: TierPolicyPreviewResponse, description: 'The counts now and under the proposed policy' })
  @ApiErrors('missing_data', 'argument_error', 'validation')
  async preview(@CurrentTenant() tenant: Tenant, @Body() body: TierPolicyPreviewBody): Promise<TierPolicyPreviewResponse> {
    return this.previews.preview(tenant.organizationId, body.tier_policy);
  }
}
