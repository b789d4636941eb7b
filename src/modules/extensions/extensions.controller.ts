import cluster from 'node:cluster';
import { Controller, Get, Inject, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ApiKeyAuth } from '../../common/auth/api-key-auth.decorator.js';
import { CurrentTenant } from '../../common/http/current-tenant.decorator.js';
import type { Tenant } from '../../common/http/request-context.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { ExtensionsResponse, type ExtensionsView, type StaleValuesView } from './dto/extensions.dto.js';
import { ExtensionFailures, ExtensionRegistry, type FailureKey, type FailureSummary } from '../registry/index.js';
import { ExtensionListing } from './extension-listing.js';
import { StaleArguments, type StaleKey, type StaleSummary } from './stale-arguments.service.js';

@ApiTags('management: extensions')
@ApiKeyAuth()
@Controller('priv/v1/apps/:api_key/management/extensions')
export class ExtensionsController implements OnApplicationBootstrap, OnModuleDestroy {
  /** Stored arguments that no longer validate: per organization here, and once at boot (this controller is the API's only). */
  private readonly stale: StaleArguments;
  private bootReport: Promise<void> | undefined;

  constructor(
    registry: ExtensionRegistry,
    private readonly listing: ExtensionListing,
    private readonly failures: ExtensionFailures,
    @InjectDataSource() db: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.stale = new StaleArguments(db, () => registry.arguments());
  }

  /**
   * The boot report of stored arguments that no longer validate (decision 0027), once the registry has collected the
   * extensions: in the API process (the first one, with API_PROCESSES > 1), not awaited by boot; its statement is
   * bounded (rows and a statement timeout). Nothing is read when no extension is loaded.
   */
  onApplicationBootstrap(): void {
    if (!cluster.isPrimary && cluster.worker?.id !== 1) return;
    this.bootReport = this.stale.reportAtBoot(this.logger).catch((error: unknown) => this.logger.warn({ err: error }, 'stored extension arguments not checked at boot'));
  }

  /** Waits for the boot report still running, so that its statement does not outlive the database connections. */
  async onModuleDestroy(): Promise<void> {
    await this.bootReport;
  }

  /** The boot report's run (tests wait for it). */
  bootReported(): Promise<void> {
    return this.bootReport ?? Promise.resolve();
  }

  @Get()
  @ApiOperation({
    summary: 'The reward kinds and criteria operators rules may use, and the event enrichers',
    description:
      "The built-ins (source core) and those extensions loaded into this application add (source: the extension's module), with " +
      "the JSON schema of each one's arguments (a reward kind: the value of its member in an outcome_config entry) or value (an " +
      "operator: a criterion's value). The same for every organization, but for `failures`: an extension that threw (or timed out) " +
      "in the organization's evaluations in the last 7 days carries its count and last error; and `stale`: an extension's reward " +
      "kind or operator whose values stored in the organization's rules its current class refuses (written under an earlier " +
      'version of it) carries their count and the first of them, each with its object, field and problems.',
  })
  @ApiOkResponse({ type: ExtensionsResponse })
  async list(@CurrentTenant() tenant: Tenant): Promise<ExtensionsResponse> {
    const listing = this.listing.listing();
    const [failures, stale] = await Promise.all([this.failures.of(tenant.organizationId), this.stale.of(tenant.organizationId)]);
    return { status: 'ok', extensions: failures?.size || stale.size ? withReports(listing, failures ?? new Map(), stale) : listing };
  }
}

/** A summary as the listing answers it: each value's object, field, extension and problems. */
function staleView({ count, values }: StaleSummary): StaleValuesView {
  return { count, values: values.map(({ object_type, object_id, field, extension, problems }) => ({ object_type, object_id, field, extension, problems })) };
}

/** The listing with each extension's failures and stale values in the organization beside it. */
function withReports(listing: ExtensionsView, failures: ReadonlyMap<FailureKey, FailureSummary>, stale: ReadonlyMap<StaleKey, StaleSummary>): ExtensionsView {
  const add =
    (kind: string) =>
    <E extends { name: string }>(entry: E): E => {
      const summary = failures.get(`${kind}:${entry.name}`);
      const values = stale.get(`${kind}:${entry.name}` as StaleKey);
      return summary || values ? { ...entry, ...(summary ? { failures: summary } : {}), ...(values ? { stale: staleView(values) } : {}) } : entry;
    };
  return {
    domain_actions: listing.domain_actions.map(add('domain_action')),
    reward_kinds: listing.reward_kinds.map(add('reward_kind')),
    criteria_operators: listing.criteria_operators.map(add('criteria_operator')),
    event_enrichers: listing.event_enrichers.map(add('event_enricher')),
  };
}
