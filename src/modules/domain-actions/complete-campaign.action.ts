import type { DomainActionOptions } from '../../extension-api/decorators.js';
import { DomainActionHandler, type DomainActionContext, type DomainActionDecision } from '../../extension-api/kinds.js';

/**
 * The built-in domain action (contract §12): completes every behavior of the campaign once for the customer, as if every
 * goal were earned now, then the campaign. Defined as a team's would be, without the decorator: the registry holds it
 * as a built-in (source `core`).
 */
export class CompleteCampaignAction extends DomainActionHandler {
  static readonly options: DomainActionOptions = {
    name: 'complete_campaign',
    description:
      "Completes every behavior of the campaign once for the customer (all goals earned; points, offers, tags, tier and notifications awarded, as events would), then the campaign. Takes no args.",
  };

  decide(ctx: DomainActionContext): DomainActionDecision {
    const result = ctx.completeCampaign();
    return result.failure ? { failure: `cannot complete the campaign: ${result.failure.detail}` } : { result };
  }
}
