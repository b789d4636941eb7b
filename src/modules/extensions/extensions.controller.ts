import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import type { Tenant } from '../../common/http/request-context.js';
import { ExtensionsResponse, type ExtensionsView } from './dto/extensions.dto.js';
import { ExtensionFailures, type FailureKey, type FailureSummary } from './extension-failures.js';
import { ExtensionRegistry } from './extension-registry.js';

@ApiTags('management: extensions')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management/extensions')
export class ExtensionsController {
  constructor(
    private readonly registry: ExtensionRegistry,
    private readonly failures: ExtensionFailures,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'The reward kinds and criteria operators rules may use, and the event enrichers',
    description:
      "The built-ins (source core) and those extensions loaded into this application add (source: the extension's module), with " +
      "the JSON schema of each one's arguments (a reward kind: the value of its member in an outcome_config entry) or value (an " +
      "operator: a criterion's value). The same for every organization, but for `failures`: an extension that threw (or timed out) " +
      "in the organization's evaluations in the last 7 days carries its count and last error.",
  })
  @ApiOkResponse({ type: ExtensionsResponse })
  async list(@CurrentTenant() tenant: Tenant): Promise<ExtensionsResponse> {
    const listing = this.registry.listing();
    const failures = await this.failures.of(tenant.organizationId);
    return { status: 'ok', extensions: failures?.size ? withFailures(listing, failures) : listing };
  }
}

/** The listing with each extension's failures in the organization beside it. */
function withFailures(listing: ExtensionsView, failures: ReadonlyMap<FailureKey, FailureSummary>): ExtensionsView {
  const add =
    (kind: string) =>
    <E extends { name: string }>(entry: E): E => {
      const summary = failures.get(`${kind}:${entry.name}`);
      return summary ? { ...entry, failures: summary } : entry;
    };
  return {
    domain_actions: listing.domain_actions.map(add('domain_action')),
    reward_kinds: listing.reward_kinds.map(add('reward_kind')),
    criteria_operators: listing.criteria_operators.map(add('criteria_operator')),
    event_enrichers: listing.event_enrichers.map(add('event_enricher')),
  };
}
