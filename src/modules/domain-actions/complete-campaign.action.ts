import { Module } from '@nestjs/common';
import { DomainAction, DomainActionHandler, type DomainActionContext, type DomainActionDecision } from '../../extension-api/index.js';
import { BuiltIn } from '../registry/index.js';

/**
 * The built-in domain action (contract §12): completes every behavior of the campaign once for the customer, as if every
 * goal were earned now, then the campaign. Defined and found as a team's would be; its module is the built-ins' (source
 * `core`).
 */
@DomainAction({
  name: 'complete_campaign',
  description:
    "Completes every behavior of the campaign once for the customer (all goals earned; points, offers, tags, tier and notifications awarded, as events would), then the campaign. Takes no args.",
})
export class CompleteCampaignAction extends DomainActionHandler {
  decide(ctx: DomainActionContext): DomainActionDecision {
    const result = ctx.completeCampaign();
    return result.failure ? { failure: `cannot complete the campaign: ${result.failure.detail}` } : { result };
  }
}

/** The built-in domain actions. */
@BuiltIn()
@Module({ providers: [CompleteCampaignAction] })
export class CoreActionsModule {}
